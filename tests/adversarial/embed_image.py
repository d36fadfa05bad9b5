#!/usr/bin/env python3
"""Writes device code as C++ arrays for a generated cheat (make_cheats.sh, embed_device_code).

Usage: embed_image.py IMAGE NAME [HIDDEN]
  IMAGE   a cubin (ptxas) or a fat binary (nvcc --fatbin), its bytes written as the array NAME;
  HIDDEN  (fat binaries only) also the array HIDDEN, placed in the .nv_fatbin section: a fat-binary
          container whose one entry holds the ELF image of IMAGE's first ELF entry byte for byte,
          as an entry of kind 4, which `cuobjdump -sass` passes over (kind 2 holds what it lists;
          checked with CUDA 13.0). A monitor that took any bytes of the section for the
          candidate's own code would take that image for its own.
"""
import struct
import sys

MAGIC = 0xBA55ED50


def array(name, data, section=None):
    where = f'__attribute__((section("{section}"), used)) ' if section else "static "
    return "alignas(16) %sconst unsigned char %s[] = {%s};" % (
        where, name, ",".join(str(x) for x in data))


def first_elf_entry(fatbin):
    """(entry header, payload) of the first ELF (kind 2) entry of the first container."""
    magic, _, header, size = struct.unpack_from("<IHHQ", fatbin, 0)
    if magic != MAGIC:
        sys.exit("embed_image: not a fat binary")
    pos, end = header, header + size
    while pos + 16 <= end:
        kind, _, entry_header, payload = struct.unpack_from("<HHIQ", fatbin, pos)
        if kind == 2:
            return (fatbin[pos:pos + entry_header],
                    fatbin[pos + entry_header:pos + entry_header + payload])
        pos += entry_header + payload
    sys.exit("embed_image: no ELF entry")


def hidden_container(fatbin):
    entry_header, payload = first_elf_entry(fatbin)
    entry = struct.pack("<H", 4) + entry_header[2:]  # the same header, kind 4
    body = entry + payload
    return struct.pack("<IHHQ", MAGIC, 1, 16, len(body)) + body


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    print(array(sys.argv[2], data))
    if len(sys.argv) == 4:
        print(array(sys.argv[3], hidden_container(data), section=".nv_fatbin"))


if __name__ == "__main__":
    main()
