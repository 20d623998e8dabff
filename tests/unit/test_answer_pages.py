"""Every page a person would take from an answer (lm_eval_a11y/answer_pages.py): the attacks that
hide a failing block beside an accessible decoy, and the honest answers that must not be punished.
Pure: what each answer's pages are; tests/corpus/test_reward.py judges them in Chromium."""

from __future__ import annotations

import pytest
from corpus.blocks_support import ATTACK_FRAGMENT, ATTACKS, DECOY, MAX_PAGES_ANSWER, F

from lm_eval_a11y.answer_pages import MAX_PAGES, deciding_page
from lm_eval_a11y.extract import extract_html


@pytest.mark.parametrize("answer", ATTACKS.values(), ids=ATTACKS.keys())
def test_every_html_block_is_a_page_to_judge(answer: str) -> None:
    found = extract_html(answer)
    assert found.found and len(found.pages) >= 2
    # The failing markup is on one of the pages, whatever block it hid in.
    assert any('<img src="data:,">' in page and "<template>" not in page for page in found.pages)
    assert found.to_dict()["pages"] == len(found.pages)


def test_a_fragment_beside_a_document_is_judged_in_its_shell() -> None:
    found = extract_html(ATTACKS["fragment then decoy document"])
    shelled = found.pages[0]
    assert shelled.startswith('<!doctype html>\n<html lang="en">\n<head><title>News</title></head>')
    assert ATTACK_FRAGMENT in shelled and "<h1>News</h1>" not in shelled
    assert found.html == DECOY  # the page that stands for the answer: the complete document


def test_fragments_alone_are_judged_as_written() -> None:
    other = "<nav>\n<a href='/'>Home</a>\n</nav>"
    found = extract_html(f"{F}html\n{ATTACK_FRAGMENT}\n{F}\n{F}html\n{other}\n{F}\n")
    assert found.pages == (ATTACK_FRAGMENT, other)


def test_an_excerpt_of_the_file_is_judged_as_part_of_it() -> None:
    snippet = "<main>\n  <h1>News</h1>\n  ...\n  <!-- the rest of the page -->\n</main>"
    found = extract_html(f"The key part:\n{F}html\n{snippet}\n{F}\nThe whole file:\n{F}html\n{DECOY}\n{F}\n")
    assert found.pages == (DECOY,) and found.covered == 1
    twice = extract_html(f"{F}html\n{DECOY}\n{F}\nAgain:\n{F}html\n{DECOY}\n{F}\n")
    assert twice.pages == (DECOY,) and twice.covered == 1


def test_an_excerpt_that_changed_a_line_is_judged() -> None:
    snippet = '<main>\n<h1>News</h1>\n<img src="data:,">\n</main>'
    found = extract_html(f"{F}html\n{snippet}\n{F}\n{F}html\n{DECOY}\n{F}\n")
    assert len(found.pages) == 2 and found.covered == 0


def test_html_css_and_javascript_blocks_are_one_page() -> None:
    answer = (
        f"{F}html\n<button id='b'>Menu</button>\n<nav id='n' hidden><a href='/'>Home</a></nav>\n{F}\n"
        f"{F}css\nnav {{ padding: 1em; }}\n{F}\n"
        f"{F}javascript\ndocument.getElementById('b').onclick = () => {{ n.hidden = !n.hidden; }};\n{F}\n"
    )
    found = extract_html(answer)
    assert len(found.pages) == 1 and found.merged == ("css", "javascript")
    page = found.pages[0]
    assert page.index("<style>") < page.index("<button") < page.index("<script>")


def test_a_script_shown_again_after_a_complete_file_is_not_run_twice() -> None:
    doc = DECOY.replace("</body>", "<script>\nconsole.log('once');\n</script>\n</body>")
    found = extract_html(f"{F}html\n{doc}\n{F}\nThe script:\n{F}js\nconsole.log('once');\n{F}\n")
    assert found.pages == (doc,) and found.merged == () and found.ignored == ("js",)


def test_jsx_is_not_html_but_html_under_a_jsx_tag_is() -> None:
    jsx = "function App() {\n  return <Accordion items={faq} />;\n}"
    found = extract_html(f"{F}html\n{DECOY}\n{F}\n{F}jsx\n{jsx}\n{F}\n{F}jsx\n<Accordion items={{faq}} />\n{F}\n")
    assert found.pages == (DECOY,) and found.ignored == ("jsx", "jsx")


def test_documents_quoted_in_inline_code_are_not_pages() -> None:
    found = extract_html(f"Start with `<!doctype html><html lang=en></html>`.\n{F}html\n{DECOY}\n{F}\n")
    assert found.pages == (DECOY,)


def test_more_pages_than_the_bound_are_not_judged_at_all() -> None:
    found = extract_html(MAX_PAGES_ANSWER)
    assert not found.found and found.how == "too-many-pages" and found.pages == ()
    fits = "".join(f"{F}html\n<p>Part {n} of a long answer.</p>\n{F}\n" for n in range(MAX_PAGES))
    assert len(extract_html(fits).pages) == MAX_PAGES


def test_the_lowest_score_decides_and_a_tie_goes_to_the_primary_page() -> None:
    assert deciding_page([1.0, 0.25, 0.5], primary=0) == 1
    assert deciding_page([1.0, 1.0], primary=1) == 1
    assert deciding_page([0.5, 0.5, 1.0], primary=2) == 0


HOSTILE = {
    "unclosed templates": f"{F}html\n" + "<template>\n" * 50_000 + F,
    "script tags never closed": f"{F}html\n<!doctype html>" + "<script " * 100_000 + f"\n{F}\n{F}js\nx()\n{F}",
    "document starts in the prose": "<html>" * 100_000,
    "document starts in inline code": "`<html> " * 100_000,
    "a thousand css blocks": f"{F}html\n<p>x</p>\n{F}\n" + f"{F}css\np {{}}\n{F}\n" * 1_000,
    "blocks over the bound": f"{F}html\n<p>x</p>\n{F}\n" * 10_000,
    "a shell of unclosed tags": f"{F}html\n<p>x</p>\n{F}\n{F}html\n<!doctype html>"
    + "<html <head " * 100_000
    + f"\n{F}",
}


@pytest.mark.parametrize("answer", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_answer_is_read_in_linear_time(answer: str) -> None:
    """Each of these took minutes with a search that starts over at every opening tag."""
    import time

    start = time.monotonic()
    extract_html(answer)
    assert time.monotonic() - start < 15


def test_the_task_record_of_an_answer_over_the_bound_fails_with_its_reason() -> None:
    from lm_eval_a11y.records import TOO_MANY_PAGES_REASON, decided_record

    record = decided_record({"id": "button", "version": "1"}, extract_html(MAX_PAGES_ANSWER), [])
    assert record["score"]["verdict"] == "fail" and record["score"]["reasons"] == [TOO_MANY_PAGES_REASON]
    assert record["extraction"]["how"] == "too-many-pages" and record["extraction"]["pages"] == 0
