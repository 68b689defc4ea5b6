#!/usr/bin/env python3
"""Writes the notebooks under testdata/notebooks/ (run by hand; the files are committed).

Each is written the way Jupyter writes it (json.dumps with the given indent, non-ASCII kept,
sorted keys as nbformat does) so the fixtures look like real notebooks; `indent4_no_newline`
uses a non-default indent and no final newline on purpose.
"""
import json
import os

HERE = os.path.join(os.path.dirname(__file__), "..", "testdata", "notebooks")
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def lines(text):
    out = text.splitlines(keepends=True)
    return out


def code(text, n=None, outputs=None, cid=None):
    return {
        "cell_type": "code",
        "execution_count": n,
        "id": cid,
        "metadata": {},
        "outputs": outputs or [],
        "source": lines(text),
    }


def md(text, cid):
    return {"cell_type": "markdown", "id": cid, "metadata": {}, "source": lines(text)}


META = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {"name": "python", "version": "3.11.4"},
}


def notebook(cells):
    return {"cells": cells, "metadata": META, "nbformat": 4, "nbformat_minor": 5}


def write(name, nb, indent=1, final_newline=True):
    text = json.dumps(nb, indent=indent, ensure_ascii=False, sort_keys=True)
    if final_newline:
        text += "\n"
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="") as f:
        f.write(text)


# The bar: a helper's expanded mask cast in a later cell, magics between, an expand().float() chain.
write(
    "cross_cell.ipynb",
    notebook(
        [
            md("# Attention masks\n\nA helper builds the mask; later cells use it.", "intro"),
            code(
                "%matplotlib inline\nimport torch\n\n\n"
                "def padding_mask(attention_mask, heads, q_len):\n"
                "    batch, k_len = attention_mask.shape\n"
                "    return attention_mask[:, None, None, :].expand(batch, heads, q_len, k_len)\n",
                1,
                cid="helper",
            ),
            code(
                "%%time\nbatch = torch.load(\"batch.pt\")\n"
                "mask = batch[\"attention_mask\"][:, None, None, :].expand(8, 32, 4096, 4096)\n",
                2,
                cid="build",
            ),
            code(
                "!pip install einops\n"
                "scores = mask.float()\n",
                3,
                [{"name": "stdout", "output_type": "stream", "text": ["Requirement already satisfied: einops\n"]}],
                cid="cast",
            ),
            code(
                "def attention_bias(attention_mask):\n"
                "    m = padding_mask(attention_mask, 32, 4096)\n"
                "    return m.to(torch.float16)\n",
                4,
                cid="helper-cast",
            ),
            code(
                "torch.Tensor.expand?\n"
                "bias = batch[\"attention_mask\"][:, None, None, :].expand(8, 32, 4096, 4096).float()",
                5,
                cid="chain",
            ),
        ]
    ),
)

# Magics of every kind around clean code: no finding, and nothing that is not Python is parsed.
write(
    "magics.ipynb",
    notebook(
        [
            code("%load_ext autoreload\n%autoreload 2\nimport torch\nIN_COLAB = False\nif IN_COLAB:\n    %pip install einops\n    !nvidia-smi", 1, cid="m1"),
            code("%%bash\nls -la | grep ipynb\nexit 0", 2, cid="m2"),
            code("files = !ls *.py\nx = torch.ones(4)\nx?\ny = x.float()  # why?", 3, cid="m3"),
            code("%%timeit\nz = torch.ones(2, 3).float().expand(4, 2, 3)", 4, cid="m4"),
            # Looks like IPython but is Python: `%` continuing an expression.
            code("name = \"x\"\nmsg = (\"a %s\"\n       % name)", 5, cid="m5"),
        ]
    ),
)

# A cell that does not parse between two that do: OOM001 there, the others still linted.
write(
    "broken_cell.ipynb",
    notebook(
        [
            code("import torch\nmask = torch.rand(8, 1, 1, 4096).expand(8, 32, 4096, 4096)", 1, cid="b1"),
            code("def oops(:\n    return (", 2, cid="b2"),
            code("m = mask.half()", 3, cid="b3"),
        ]
    ),
)

# Outputs with an image, a cast with a fix, and a noqa'd and a file-suppressed twin.
write(
    "outputs.ipynb",
    notebook(
        [
            code(
                "import torch\nimport matplotlib.pyplot as plt\n"
                "attn = torch.rand(4, 1, 1, 2048).expand(4, 16, 2048, 2048)",
                1,
                [
                    {
                        "data": {"image/png": PNG, "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
                        "metadata": {"needs_background": "light"},
                        "output_type": "display_data",
                    }
                ],
                cid="o1",
            ),
            code("weights = attn.half()", 2, cid="o2"),
            code("quiet = attn.double()  # noqa: OOM101", 3, cid="o3"),
            code("w2 = torch.rand(4, 1, 1, 2048).expand(4, 16, 2048, 2048).half()\nprint(w2.shape)", 4, cid="o4"),
        ]
    ),
)

# Indent 4, `source` as one string, no final newline: kept as they are by a fix.
nb = notebook(
    [
        code(
            "import torch\nm = torch.rand(8, 1, 1, 4096).expand(8, 32, 4096, 4096)\n"
            "k = torch.rand(8, 1, 4096).expand(8, 4096, 4096).half()\n\"\"\"é\ttab\"\"\"\n",
            1,
            cid="i1",
        ),
        code("n = m.bool()", 2, cid="i2"),
    ]
)
nb["cells"][0]["source"] = "".join(nb["cells"][0]["source"])
write("indent4_no_newline.ipynb", nb, indent=4, final_newline=False)

# A notebook whose findings are all suppressed file-wide from a cell.
write(
    "file_suppressed.ipynb",
    notebook(
        [
            code("# oomlint: noqa: OOM101\nimport torch", 1, cid="f1"),
            code("m = torch.rand(8, 1, 1, 4096).expand(8, 32, 4096, 4096).half()", 2, cid="f2"),
        ]
    ),
)
