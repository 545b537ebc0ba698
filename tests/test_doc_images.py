"""Every image the docs embed exists, and every lab experiment's plot is embedded.

The lab's plots are committed as docs/images/lab-NAME.png, made by
``python -m minigrad lab NAME --out ...`` at default settings.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
# ![alt](path "title") and <img src="path">
IMAGE = re.compile(
    r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|<img[^>]*\ssrc=\"([^\"]+)\""
)
PNG = b"\x89PNG\r\n\x1a\n"


def embedded(page: pathlib.Path) -> list[str]:
    return [a or b for a, b in IMAGE.findall(page.read_text(encoding="utf-8"))]


def test_the_pattern_finds_both_markdown_and_html_images():
    text = '![a](images/x.png) text ![b]( <images/y.png> "t") <img alt="c" src="z.png">'
    assert [a or b for a, b in IMAGE.findall(text)] == ["images/x.png", "images/y.png", "z.png"]


@pytest.mark.parametrize("page", [p for p in PAGES if p.exists()], ids=lambda p: p.name)
def test_every_embedded_image_exists(page):
    for src in embedded(page):
        if src.startswith(("http://", "https://")):
            continue
        path = (page.parent / src).resolve()
        assert path.is_file(), f"{page.name} embeds {src}, which does not exist"
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG, f"{src} is not a PNG file"


def test_every_lab_experiment_has_its_plot_in_lab_md():
    from minigrad.lab import EXPERIMENTS

    images = set(embedded(ROOT / "docs" / "lab.md"))
    for name in EXPERIMENTS:  # one plot, or one per quantity (lab-NAME-QUANTITY.png)
        shown = f"images/lab-{name}.png" in images or any(
            i.startswith(f"images/lab-{name}-") and i.endswith(".png") for i in images
        )
        assert shown, f"docs/lab.md does not show lab-{name}.png (or lab-{name}-*.png)"
