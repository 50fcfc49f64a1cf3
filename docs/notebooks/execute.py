"""Execute the example notebooks in place from a fresh kernel (after ``make_notebooks.py``)."""
from pathlib import Path

import nbclient
import nbformat

HERE = Path(__file__).parent

if __name__ == "__main__":
    for path in sorted(HERE.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(HERE)}}).execute()
        nbformat.write(nb, path)
        print("executed", path.name)
