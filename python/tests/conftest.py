import pathlib

DATA = pathlib.Path(__file__).parent / "data"
PYTHON_DIR = pathlib.Path(__file__).parent.parent
