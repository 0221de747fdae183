"""kafkasim: a small model of Kafka's transaction protocol that prints `kafka-dump-log.sh` text."""

from .bulk import generate_bulk, parse_size
from .eras import ERAS, MAIN_ERAS, Era, get_era
from .model import Producer, Sim
from .render import RenderOptions, finalize_truth, write_case
from .scenarios import SCENARIOS, expand, populate, scenario_names

__all__ = [
    "ERAS", "MAIN_ERAS", "Era", "Producer", "RenderOptions", "SCENARIOS", "Sim", "expand", "finalize_truth",
    "generate_bulk", "get_era", "parse_size", "populate", "scenario_names", "write_case",
]
