"""The worked examples in docs/notebooks execute from a fresh kernel (their outputs are
regenerated, not trusted) and print their answers."""
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).parent.parent / "docs" / "notebooks").glob("*.ipynb"))
# a line each notebook must print: its answer
EXPECTED = {"serving_70b_sla.ipynb": ("best: ", "limited by", "serving wins"),
            "codesign_hypothetical_chip.ipynb": ("recommended:", "next knob")}


def test_every_notebook_is_checked():
    assert {p.name for p in NOTEBOOKS} == set(EXPECTED)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path):
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    for needle in EXPECTED[path.name]:
        assert needle in text, needle
