"""The C library's folders form the pipeline's layers: each includes only layers below it."""

import re
from pathlib import Path

LIB = Path(__file__).resolve().parents[2] / "lib"
# bottom first; a folder may include itself and any folder before it
LAYERS = [
    "base", "normalize", "decode", "plan", "kernel", "core", "p2p", "coll", "io", "interpose",
    "record",  # the call-site recorder of `memcomm advise`, a library of its own
]  # fmt: skip


def included_folders(source: Path) -> set[str]:
    found = set()
    for name in re.findall(r'#include "([^"]+)"', source.read_text()):
        target = (source.parent / name).resolve()
        if LIB in target.parents:
            found.add(target.relative_to(LIB).parts[0])
    return found


def test_every_folder_is_a_layer() -> None:
    folders = {p.name for p in LIB.iterdir() if p.is_dir()}
    assert folders == set(LAYERS)


def test_folders_include_only_layers_below_them() -> None:
    wrong = []
    for folder in LAYERS:
        allowed = set(LAYERS[: LAYERS.index(folder) + 1])
        for source in sorted((LIB / folder).glob("*.[ch]")):
            for used in included_folders(source) - allowed:
                wrong.append(f"{source.relative_to(LIB)} includes {used}/")
    assert not wrong, "\n".join(wrong)
