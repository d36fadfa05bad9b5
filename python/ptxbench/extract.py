"""The source file in a model's answer, by the same rules as the C++ judge (src/llm/code_extract):
markdown fences (``` or ~~~) found line by line, a leading <think>...</think> section ignored; the
longest block tagged cuda/cu that defines ptxb_run, else the longest block containing "ptxb_run",
else the longest CUDA/C/C++-tagged block, else the longest untagged block, else None (ties go to
the later block)."""

from __future__ import annotations

from dataclasses import dataclass

_CUDA_TAGS = {"cuda", "cu"}
_CXX_TAGS = {"cuda", "cu", "cuh", "c++", "cpp", "cxx", "cc", "c", "h", "hpp", "hxx"}
_SPACE = " \t\r\n"


@dataclass
class _Fence:
    mark: str
    count: int
    indent: int
    info: str


@dataclass
class CodeBlock:
    tag: str
    code: str
    terminated: bool


def _parse_fence(line: str) -> _Fence | None:
    indent = len(line) - len(line.lstrip(" \t"))
    rest = line[indent:]
    if not rest or rest[0] not in "`~":
        return None
    mark = rest[0]
    count = len(rest) - len(rest.lstrip(mark))
    if count < 3:
        return None
    info = rest[count:]
    if mark == "`" and "`" in info:  # "```x```" on one line is inline code
        return None
    return _Fence(mark, count, indent, info)


def _closes(open_fence: _Fence, line: str) -> bool:
    fence = _parse_fence(line)
    return (fence is not None and fence.mark == open_fence.mark
            and fence.count >= open_fence.count and fence.info.strip(_SPACE) == "")


def _tag_of(info: str) -> str:
    info = info.lstrip(_SPACE + "{.")
    tag = []
    for c in info:
        if c in _SPACE or c in "}:,":
            break
        tag.append(c.lower() if "A" <= c <= "Z" else c)
    return "".join(tag)


def _dedent(line: str, indent: int) -> str:
    n = 0
    while n < indent and n < len(line) and line[n] in " \t":
        n += 1
    return line[n:]


def find_code_blocks(text: str) -> list[CodeBlock]:
    blocks: list[CodeBlock] = []
    open_fence: _Fence | None = None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a final newline ends the last line, it does not start another
    for line in lines:
        if line.endswith("\r"):
            line = line[:-1]
        if open_fence is None:
            open_fence = _parse_fence(line)
            if open_fence is not None:
                blocks.append(CodeBlock(_tag_of(open_fence.info), "", False))
        elif _closes(open_fence, line):
            blocks[-1].terminated = True
            open_fence = None
        else:
            blocks[-1].code += _dedent(line, open_fence.indent) + "\n"
    return blocks


def strip_thinking(text: str) -> str | None:
    """The answer without a leading reasoning section; None when it is all reasoning."""
    stripped = text.lstrip(_SPACE)
    if stripped.startswith("<think>"):
        close = stripped.find("</think>", len("<think>"))
        return None if close < 0 else stripped[close + len("</think>"):]
    close = text.find("</think>")
    if close < 0 or "<think>" in text[:close]:
        return text
    return text[close + len("</think>"):]


def defines_ptxb_run(code: str) -> bool:
    name = "ptxb_run"
    at = code.find(name)
    while at >= 0:
        i = at + len(name)
        ident = (at > 0 and (code[at - 1].isalnum() or code[at - 1] == "_")) or (
            i < len(code) and (code[i].isalnum() or code[i] == "_"))
        if not ident:
            while i < len(code) and code[i] in _SPACE:
                i += 1
            if i < len(code) and code[i] == "(":
                depth = 0
                while i < len(code):
                    depth += 1 if code[i] == "(" else -1 if code[i] == ")" else 0
                    if depth == 0:
                        break
                    i += 1
                if i < len(code):
                    i += 1
                    while i < len(code) and code[i] in _SPACE:
                        i += 1
                    if code.startswith("noexcept", i):
                        i += len("noexcept")
                    while i < len(code) and code[i] in _SPACE:
                        i += 1
                    if i < len(code) and code[i] == "{":
                        return True
        at = code.find(name, at + 1)
    return False


def extract_code(answer: str) -> str | None:
    visible = strip_thinking(answer)
    if visible is None:
        return None
    blocks = [b for b in find_code_blocks(visible) if b.code.strip(_SPACE)]
    preferences = [
        lambda b: b.tag in _CUDA_TAGS and defines_ptxb_run(b.code),
        lambda b: "ptxb_run" in b.code,
        lambda b: b.tag in _CXX_TAGS,
        lambda b: b.tag == "",
    ]
    for keep in preferences:
        best = None
        for b in blocks:
            if keep(b) and (best is None or len(b.code) >= len(best.code)):
                best = b
        if best is not None:
            return best.code
    return None
