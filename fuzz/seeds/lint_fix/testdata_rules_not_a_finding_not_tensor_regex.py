# Not a finding: re.Match.expand with a template string; string literals are not tensors.
import re

PATTERN = re.compile(r"layers\.(\d+)\.(\w+)")


def rename(key):
    m = PATTERN.match(key)
    if m is None:
        return key
    layer = m.expand(r"\1")
    if m.expand(r"\2") == "0":
        return "block." + layer
    return "block." + layer + "." + m.expand(r"\g<2>").lower()


def banner(title):
    line = "=" * 40
    return line + "\n" + "{}".format(title).center(40) + "\n" + line
