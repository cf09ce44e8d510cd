"""The papers memcomm is built from (docs/references.md), as its output cites them."""

import re

# the experiments' and analyses' sources name a paper by its number in docs/references.md's
# order of building ("001 sec. 4"); what a user reads is its authors and venue
PAPERS = {
    "000": "Byna, Cameron, Sun: Memory-aware Communication",
    "001": "Byna, Gropp, Sun, Thakur, CLUSTER 2003",
    "003": "Moritz, Frank: LoGPC, IEEE TPDS 2001",
    "004": "Pellegrini, Hoefler, Fahringer, CLUSTER 2012",
}


def cite(source: str) -> str:
    """A source such as "001 sec. 4; 000 eq. 1" with each paper named."""
    return re.sub(r"\b(00[0-4])\b", lambda m: PAPERS.get(m.group(1), m.group(1)), source)
