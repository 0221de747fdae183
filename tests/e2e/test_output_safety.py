"""Text from inputs and rule files prints as itself: no escape sequence reaches the terminal, no
rich markup is interpreted, no Markdown code span or HTML is broken out of."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "fixtures" / "logs" / "java_log4j2_short.log"
#: A transactional.id as a hostile log could carry it: a clear-screen sequence, a backtick that
#: would close a code span, HTML that a Markdown viewer would render.
EVIL_ID = "tx\x1b[2J`<b>x</b>\x9b31m-7"
#: What the log reader keeps of it: 7-bit ANSI sequences are colour codes to it and removed.
READ_ID = "tx`<b>x</b>\x9b31m-7"


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, cwd=cwd)


def hostile_log(tmp_path: Path) -> Path:
    path = tmp_path / "app.log"
    path.write_text(LOG.read_text(encoding="utf-8").replace("billing-tx-7", EVIL_ID), encoding="utf-8")
    return path


def test_the_hostile_id_is_read_as_is(tmp_path: Path) -> None:
    proc = run_cli("analyze", "--format", "json", str(hostile_log(tmp_path)))
    findings = json.loads(proc.stdout)["findings"]
    assert findings and findings[0]["subject"]["transactional_id"] == READ_ID  # JSON keeps the data exact


def test_text_report_shows_control_characters_instead_of_sending_them(tmp_path: Path) -> None:
    proc = run_cli("analyze", str(hostile_log(tmp_path)))
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 1, proc.stderr.decode()
    assert "\x1b" not in out and "\x9b" not in out
    assert r"tx`<b>x</b>\x9b31m-7" in out


def _outside_code(markdown: str) -> str:
    """The Markdown with fenced blocks and inline code spans removed (what renders as markup)."""
    text = re.sub(r"^(`{3,})[^\n]*\n.*?^\1$", "", markdown, flags=re.S | re.M)
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", text)


def test_markdown_keeps_hostile_text_inside_its_code_span_and_escapes_html(tmp_path: Path) -> None:
    proc = run_cli("analyze", "--format", "markdown", str(hostile_log(tmp_path)))
    out = proc.stdout.decode("utf-8")
    assert "\x1b" not in out and "\x9b" not in out
    spans = re.findall(r"(`+) ?(transactional_id=.*?) ?\1(?!`)", out)
    assert spans and spans[0][1] == r"transactional_id=tx`<b>x</b>\x9b31m-7"  # the backtick did not close it
    rendered = _outside_code(out)
    assert "<b>" not in rendered and "&lt;b&gt;" in rendered  # in prose the HTML is escaped
    assert "### tx\\`&lt;b&gt;x&lt;/b&gt;\\\\x9b31m-7 (EXP101\\#1)" in out  # the timeline table's heading


def test_html_shows_the_hostile_id_as_text_in_the_page_and_its_picture(tmp_path: Path) -> None:
    from html.parser import HTMLParser

    proc = run_cli("analyze", "--format", "html", str(hostile_log(tmp_path)))
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 1, proc.stderr.decode()
    assert "\x1b" not in out and "\x9b" not in out

    class Tags(HTMLParser):
        tags: list[str] = []
        text: list[str] = []

        def handle_starttag(self, tag: str, attrs: list) -> None:
            self.tags.append(tag)

        def handle_data(self, data: str) -> None:
            self.text.append(data)

    page = Tags()
    page.feed(out)
    assert "b" not in page.tags and "script" not in page.tags
    assert page.tags.count("svg") == 1  # the id's timeline picture
    shown = "".join(page.text)
    assert shown.count(r"tx`<b>x</b>\x9b31m-7") >= 3  # summary, finding, picture caption (control shown as \x9b)


def test_rich_markup_in_a_rule_title_prints_as_itself(tmp_path: Path) -> None:
    source = (ROOT / "rules" / "fencing.yaml").read_text(encoding="utf-8")
    head, rest = source.split("rules:\n", 1)
    first = rest.split("\n  - id: ")[0]
    first = first.replace("id: FEN001", "id: ZZZ001").replace("name: fenced-by-new-instance", "name: odd-title")
    first = re.sub(r"title: .*", 'title: "[/bold] [link=file:///etc/passwd]click[/link] \\\\x1b]0;t\\\\x07"', first, count=1)
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "odd.yaml").write_text(head + "rules:\n" + first + "\n", encoding="utf-8")
    proc = run_cli("rules", "--rules", str(folder), "--select", "ZZZ001")
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "[/bold] [link=file:///etc/passwd]click[/link]" in out
    assert "\x1b" not in out  # neither the title's escape nor a hyperlink (OSC 8)


def test_credentials_in_a_log_line_are_masked_in_evidence(tmp_path: Path) -> None:
    text = LOG.read_text(encoding="utf-8").replace(
        "Aborting producer batches due to fatal error",
        'Aborting producer batches due to fatal error (sasl.jaas.config=PlainLoginModule required username="svc" '
        'password="hunter2"; ssl.keystore.password = s3cret, ssl.key.password=[hidden])')
    log = tmp_path / "app.log"
    log.write_text(text, encoding="utf-8")
    for fmt in ("json", "text", "markdown", "html"):
        proc = run_cli("analyze", "--format", fmt, str(log))
        out = proc.stdout.decode("utf-8")
        assert "Aborting producer batches" in out  # the line is still the evidence
        assert "hunter2" not in out and "s3cret" not in out
        assert "ssl.key.password=[hidden]" in out.replace("\\[", "[").replace("\\]", "]")
