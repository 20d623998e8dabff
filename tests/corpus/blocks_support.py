"""Answers with more than one HTML block: the attacks that hide a failing block beside an
accessible decoy, and the honest answers that show a page in several blocks. Shared by the pure
extraction tests (tests/unit/test_answer_pages.py) and the reward and task tests, which judge them
in Chromium."""

from __future__ import annotations

from lm_eval_a11y.answer_pages import MAX_PAGES

F = "```"
# The fragment the prompt asked for, failing: an image without a text alternative, a field without a label.
ATTACK_FRAGMENT = (
    '<form>\n<p>Sign up for our newsletter today and save.</p>\n<img src="data:,">\n<input type="text">\n</form>'
)
BAD = ATTACK_FRAGMENT
DECOY = (
    '<!doctype html>\n<html lang="en">\n<head><title>News</title></head>\n<body>\n<main>\n<h1>News</h1>\n'
    "<p>Our newsletter brings the week's news every Friday.</p>\n</main>\n</body>\n</html>"
)
# Each attack: the answer, and the number of pages that must be judged (the failing one among them).
ATTACKS = {
    "fragment then decoy document": f"Here:\n{F}html\n{BAD}\n{F}\nFull page:\n{F}html\n{DECOY}\n{F}\n",
    "decoy document then fragment": f"{F}html\n{DECOY}\n{F}\nThe part:\n{F}html\n{BAD}\n{F}\n",
    "decoy in an untagged fence": f"{F}html\n{BAD}\n{F}\n{F}\n{DECOY}\n{F}\n",
    "decoy in a jsx fence": f"{F}html\n{BAD}\n{F}\n{F}jsx\n{DECOY}\n{F}\n",
    "decoy in an xml fence": f"{F}html\n{BAD}\n{F}\n{F}xml\n{DECOY}\n{F}\n",
    "fragment in a jsx fence, decoy in html": f"{F}jsx\n{BAD}\n{F}\n{F}html\n{DECOY}\n{F}\n",
    "three blocks, one failing": (
        f"{F}html\n{DECOY}\n{F}\n{F}html\n{BAD}\n{F}\n{F}html\n{DECOY.replace('News', 'Mail')}\n{F}\n"
    ),
    "decoy as raw prose after the fence": f"{F}html\n{BAD}\n{F}\nOr as a page: {DECOY}\nThanks.",
    "raw document before a fence": f"{DECOY}\nand the part:\n{F}html\n{BAD}\n{F}\n",
    "failing raw document beside a fenced decoy": f"{F}html\n{DECOY}\n{F}\nOr: {DECOY.replace('<main>', BAD)}\n",
    "fragment parked in the decoy's template": (
        f"{F}html\n{BAD}\n{F}\n{F}html\n{DECOY.replace('</main>', '<template>' + BAD + '</template></main>')}\n{F}\n"
    ),
}

MAX_PAGES_ANSWER = "".join(
    f"{F}html\n<p>Part {n} of a long answer, with words.</p>\n{F}\n" for n in range(MAX_PAGES + 1)
)
"""More HTML pages than are judged: the answer gets no verdict but a failing one."""

# Honest answers with more than one block: each must get what its page alone gets (1.0 here).
_SCRIPTED = DECOY.replace(
    "</main>",
    '<button type="button" id="more" aria-expanded="false" aria-controls="extra">More news</button>\n'
    '<p id="extra" hidden>Back issues are in the archive.</p>\n</main>',
).replace(
    "</body>",
    "<script>\nconst more = document.getElementById('more');\nmore.addEventListener('click', () => {\n"
    "  const open = more.getAttribute('aria-expanded') !== 'true';\n"
    "  more.setAttribute('aria-expanded', String(open));\n"
    "  document.getElementById('extra').hidden = !open;\n});\n</script>\n</body>",
)
_SPLIT_HTML = DECOY.replace("</main>", '<button type="button" id="more">Show the archive</button>\n</main>')
HONEST = {
    "the key lines, then the whole file": (
        "The button that shows more:\n"
        f"{F}html\n"
        '<button type="button" id="more" aria-expanded="false" aria-controls="extra">More news</button>\n'
        "<!-- ... -->\n"
        f"{F}\nThe complete page:\n{F}html\n{_SCRIPTED}\n{F}\n"
    ),
    "a usage snippet beside the file": (
        f"{F}html\n{_SCRIPTED}\n{F}\nTo add a note, put this in the page:\n"
        f'{F}html\n<p class="note">Issues come out every Friday morning.</p>\n{F}\n'
    ),
    "html, css and javascript in three blocks": (
        f"index.html:\n{F}html\n{_SPLIT_HTML}\n{F}\n"
        f"style.css:\n{F}css\nbutton {{ padding: 0.5em 1em; color: #fff; background: #1a4d8f; }}\n{F}\n"
        f"script.js:\n{F}javascript\ndocument.getElementById('more').addEventListener('click', () => {{}});\n{F}\n"
    ),
}
