"""analyze reads configuration files with lint's readers, sources and defaults: one config model."""

from __future__ import annotations

import pytest

from kafkadiag.config import DEFAULTS, ConfigError, EffectiveConfig
from kafkadiag.lint import defaults as lint_defaults
from kafkadiag.readers.configs import parse_config


def test_analyze_defaults_are_lints_defaults():
    code = lint_defaults.version_code(lint_defaults.DEFAULT_KAFKA_VERSION)
    table = {**lint_defaults.java_producer(code), **lint_defaults.broker(code)}
    assert DEFAULTS and all(DEFAULTS[k] == table[k] for k in DEFAULTS)


def test_config_option_reads_compose_and_spring_files(tmp_path):
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  kafka:\n    image: confluentinc/cp-kafka:7.6.0\n    environment:\n"
                       "      KAFKA_BROKER_ID: 1\n      KAFKA_TRANSACTION_MAX_TIMEOUT_MS: 600000\n")
    spring = tmp_path / "application.yml"
    spring.write_text("spring:\n  kafka:\n    producer:\n      transaction-id-prefix: tx-\n      properties:\n"
                      "        transaction.timeout.ms: 120000\n")
    config = EffectiveConfig.defaults()
    config.load_properties(str(compose))
    config.load_properties(str(spring))
    assert (config.values["transaction.max.timeout.ms"].value, config.values["transaction.max.timeout.ms"].source) == (
        600000, f"{compose}:6")
    assert config.values["transaction.timeout.ms"].value == 120000
    assert config.values["transaction.timeout.ms"].source == f"{spring}:6"


def test_config_option_refuses_an_unusable_value_in_any_format(tmp_path):
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  kafka:\n    image: apache/kafka:3.9.0\n    environment:\n"
                       "      KAFKA_NODE_ID: 1\n      KAFKA_TRANSACTION_MAX_TIMEOUT_MS: soon\n")
    with pytest.raises(ConfigError, match=r"docker-compose.yml:6: transaction.max.timeout.ms='soon'"):
        EffectiveConfig.defaults().load_properties(str(compose))


def test_positional_config_inputs_use_the_same_sources(tmp_path):
    units, kind = parse_config("services:\n  kafka:\n    image: apache/kafka:3.9.0\n    environment:\n"
                               "      KAFKA_NODE_ID: 1\n", "docker-compose.yml")
    assert kind == "compose" and [u.dialect for u in units] == ["broker"] and units[0].broker_count == 1
    config = EffectiveConfig.defaults()
    props, _ = parse_config("transactional.id=t\ntransaction.timeout.ms=90000\n", "p.properties")
    config.overlay_config(props[0])
    assert config.values["transaction.timeout.ms"].value == 90000
