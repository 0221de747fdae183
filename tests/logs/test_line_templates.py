"""Learned line templates: a recipe's row function is compiled once per layout of its digit runs."""

from __future__ import annotations

from kafkadiag.readers.logs.fastline import LineTemplates, Shape
from kafkadiag.readers.logs.layouts import Recognisers

LINE = ("%7|1700000000.123|TXNSTATE|rdkafka#producer-1| [thrd:main]: "
        "Transaction state change InTransaction -> BeginCommit")
SAME_LAYOUT = LINE.replace("1700000000.123", "1700000009.456")
LONGER_CLIENT = LINE.replace("producer-1|", "producer-12|")


def test_learning_and_the_shape_share_one_row_function() -> None:
    templates = LineTemplates(Recognisers())
    shape = templates.lookup(LINE, False)
    assert isinstance(shape, Shape)
    assert list(shape.recipe.rows.values()) == [shape.row]  # the check of learning, reused
    assert templates.lookup(SAME_LAYOUT, False) is shape
    longer = templates.lookup(LONGER_CLIENT, False)
    assert isinstance(longer, Shape) and longer.recipe is shape.recipe and longer.row is not shape.row
    assert len(shape.recipe.rows) == 2
    # the rows the functions build are the lines' own values
    assert "rdkafka#producer-12" in longer.row(0, 0, 0, 0, 0, LONGER_CLIENT)
    assert "rdkafka#producer-1" in shape.row(0, 0, 0, 0, 0, LINE)
