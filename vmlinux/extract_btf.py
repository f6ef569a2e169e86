#!/usr/bin/env python3
"""Extract the raw .BTF blob embedded in a Linux kernel boot image.

Usage: extract_btf.py KERNEL_IMAGE OUT.btf

KERNEL_IMAGE may be a raw arm64 Image, a gzip/xz/zstd-compressed Image, or an
EFI zboot image (PE "MZ" header with "zimg" magic wrapping a compressed Image).
The BTF header (struct btf_header in include/uapi/linux/btf.h) is located by
its fixed prefix: magic 0xeB9F (little-endian), version 1, flags 0,
hdr_len 24. The blob length is computed from the header's type/string
section offsets and lengths. Among valid candidates the largest one is kept
(that is vmlinux's own BTF).
"""

import gzip
import lzma
import shutil
import struct
import subprocess
import sys

BTF_HDR_PREFIX = struct.pack("<HBBI", 0xEB9F, 1, 0, 24)
BTF_HDR_FMT = "<HBBIIIII"  # magic version flags hdr_len type_off type_len str_off str_len
BTF_HDR_LEN = struct.calcsize(BTF_HDR_FMT)


def zstd_decompress(data):
    zstd = shutil.which("zstd")
    if not zstd:
        sys.exit("extract_btf: zstd-compressed image but no `zstd` tool (apt-get install zstd)")
    return subprocess.run([zstd, "-dc"], input=data, stdout=subprocess.PIPE, check=True).stdout


def decompress(data, codec):
    if codec == "gzip":
        # gzip.decompress rejects trailing garbage after the member; use a
        # decompressobj so padding after the stream is ignored.
        import zlib
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data)
    if codec in ("xz", "lzma"):
        return lzma.LZMADecompressor().decompress(data)
    if codec == "zstd" or codec == "zstd22":
        return zstd_decompress(data)
    sys.exit("extract_btf: unsupported compression: %s" % codec)


def unwrap(data, depth=0):
    """Return the uncompressed kernel image."""
    if depth > 3:
        return data
    if data[:2] == b"\x1f\x8b":
        return unwrap(decompress(data, "gzip"), depth + 1)
    if data[:6] == b"\xfd7zXZ\x00":
        return unwrap(decompress(data, "xz"), depth + 1)
    if data[:4] == b"\x28\xb5\x2f\xfd":
        return unwrap(decompress(data, "zstd"), depth + 1)
    if data[:2] == b"MZ" and data[4:8] == b"zimg":
        # EFI zboot header (drivers/firmware/efi/libstub/zboot-header.S):
        # u32 payload_offset @8, u32 payload_size @12, comp_type string @24.
        off, size = struct.unpack_from("<II", data, 8)
        codec = data[24:32].split(b"\0", 1)[0].decode("ascii", "replace")
        return unwrap(decompress(data[off:off + size], codec), depth + 1)
    return data


def find_btf(img):
    best = None
    pos = img.find(BTF_HDR_PREFIX)
    while pos >= 0:
        if pos + BTF_HDR_LEN <= len(img):
            _, _, _, hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from(
                BTF_HDR_FMT, img, pos)
            end = hdr_len + max(type_off + type_len, str_off + str_len)
            s0 = pos + hdr_len + str_off
            s1 = s0 + str_len
            ok = (type_len > 0 and str_len > 0
                  and type_off % 4 == 0
                  and type_off + type_len <= str_off   # types precede strings
                  and pos + end <= len(img)
                  and img[s0] == 0 and img[s1 - 1] == 0)
            if ok and (best is None or end > best[1]):
                best = (pos, end)
        pos = img.find(BTF_HDR_PREFIX, pos + 1)
    return best


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        img = unwrap(f.read())
    found = find_btf(img)
    if not found:
        sys.exit("extract_btf: no BTF blob found in %s (kernel built without "
                 "CONFIG_DEBUG_INFO_BTF?)" % sys.argv[1])
    pos, size = found
    with open(sys.argv[2], "wb") as f:
        f.write(img[pos:pos + size])
    print("extract_btf: %d bytes of BTF at offset 0x%x of the %d-byte image"
          % (size, pos, len(img)), file=sys.stderr)


if __name__ == "__main__":
    main()
