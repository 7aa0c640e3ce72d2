"""Reading the YAML that users write (hardware configs, sweep files, `--set` values), with bounds.

PyYAML's `safe_load` builds aliases as shared objects, so a few lines of nested anchors (a "billion
laughs" document) load instantly and then explode in whatever walks the value: an error message
printing it, `json.dumps`, a deep copy. A config has about a hundred values and a sweep a few
thousand, so a document is refused here when it is larger than `MAX_CHARS`, when its aliases expand
to more than `MAX_NODES` values, or when an alias refers to itself. A key given twice in one mapping
is refused too: PyYAML would keep the last one silently.
"""
from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, SequenceNode

MAX_CHARS = 1 << 20          # 1 MiB of text: the configs are ~6 KiB, a sweep over long value lists ~100 KiB
MAX_NODES = 100_000          # values after alias expansion: the configs have ~150, a bomb billions
_MERGE_TAG = "tag:yaml.org,2002:merge"


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses a key repeated within one mapping (merge keys `<<` may be overridden)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, MappingNode):
            seen: set = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:            # an unhashable key: the base class reports it
                    continue
                if duplicate:
                    raise ConstructorError("while constructing a mapping", node.start_mark,
                                           f"found the key {key!r} twice", key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep)


# PyYAML follows YAML 1.1, where `1e-3` and `2E9` (no dot) are strings; every user means a number,
# as YAML 1.2 and JSON do. Without this, strict config types would refuse `latency_ns: 1e3`.
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+$"),
                              list("-+0123456789"))


def _children(node) -> list:
    if isinstance(node, SequenceNode):
        return node.value
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_expansion(root, where: str, error: type[Exception], max_nodes: int) -> None:
    """Count the values the document holds once its aliases are expanded, without expanding them:
    each node's expanded size is computed once (iteratively: no recursion limit)."""
    size: dict[int, int] = {}
    path: set[int] = set()                 # the nodes being counted: reaching one again is a cycle
    stack = [(root, False)]
    while stack:
        node, finished = stack.pop()
        nid = id(node)
        if finished:
            path.discard(nid)
            size[nid] = 1 + sum(size[id(c)] for c in _children(node))
            if size[nid] > max_nodes:
                raise error(f"{where}: its aliases (*name) expand to more than {max_nodes:,} values "
                            f"(line {node.start_mark.line + 1}); a config or sweep has a few hundred")
            continue
        if nid in size:
            continue
        path.add(nid)
        stack.append((node, True))
        for c in _children(node):
            if id(c) in path:
                raise error(f"{where}: line {c.start_mark.line + 1}: an alias refers to the value that "
                            f"contains it, which would never end")
            if id(c) not in size:
                stack.append((c, False))


def load_yaml(text: str, where: str, error: type[Exception]) -> Any:
    """The value of one YAML document, or `error(message)` naming `where` and the cause."""
    if len(text) > MAX_CHARS:
        raise error(f"{where}: {len(text):,} characters is more than a config or sweep file holds "
                    f"(at most {MAX_CHARS:,})")
    loader = None
    try:
        loader = _Loader(text)           # reads the text: a control character fails here
        loader.name = where              # marks in messages name the file, not "<unicode string>"
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, where, error, MAX_NODES)
        return loader.construct_document(node)
    except yaml.YAMLError as e:
        raise error(f"{where}: not valid YAML: {e}") from None
    except RecursionError:
        raise error(f"{where}: not valid YAML: nested too deeply") from None
    except ValueError as e:
        if isinstance(e, error):
            raise
        # PyYAML's constructors: a date like 2020-02-30, an integer of 5000 digits
        raise error(f"{where}: not valid YAML: {e}") from None
    finally:
        if loader is not None:
            loader.dispose()
