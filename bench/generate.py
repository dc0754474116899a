"""Write synthetic transcripts: `python bench/generate.py --turns 100000 --out /tmp/syn`.

The generator itself is `tests/support/generate.py` (the tests check its collection statistics).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.generate import main  # noqa: E402

if __name__ == "__main__":
    main()
