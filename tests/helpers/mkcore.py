#!/usr/bin/python3
# mkcore.py OBJ BUILD_ID BASE PID TID OUT -- a small arm64 core of thread
# TID of process PID, as the kernel writes one (ELF64 ET_CORE EM_AARCH64:
# NT_PRSTATUS with the registers, NT_PRPSINFO, NT_SIGINFO SIGSEGV/
# SEGV_MTESERR, NT_FILE), for the tests of the top frames (coreframes.h):
# the file OBJ mapped at BASE (its first page in the core: an arm64 ELF
# header with a GNU build-id note BUILD_ID), the thread faulting at
# OBJ+0xba1c0 in a leaf routine called from OBJ+0x1238 (x30), itself
# called from OBJ+0x5678 and OBJ+0x9abc by frame records (x29) on a stack
# at 0xffffe0000000.
import struct
import sys

obj, bid, base, pid, tid, out = sys.argv[1], bytes.fromhex(sys.argv[2]), int(sys.argv[3], 0), \
    int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
stack = 0xffffe0000000


def note(kind, desc):
    return struct.pack('<III', 5, len(desc), kind) + b'CORE\0\0\0\0' + desc + b'\0' * (-len(desc) % 4)


pr = bytearray(392)
struct.pack_into('<H', pr, 12, 11)                       # pr_cursig
struct.pack_into('<I', pr, 32, tid)                      # pr_pid
regs = [0] * 34                                          # x0-x30, sp, pc, pstate
regs[29], regs[30], regs[31], regs[32] = stack + 0x100, base + 0x1238, stack + 0x80, base + 0xba1c0
struct.pack_into('<34Q', pr, 112, *regs)
ps = bytearray(136)
struct.pack_into('<I', ps, 24, pid)
si = bytearray(128)
struct.pack_into('<iiiiQ', si, 0, 11, 0, 9, 0, 0x0f00007fbb594d80)
nf = struct.pack('<QQQQQ', 1, 4096, base, base + 0xda000, 0) + obj.encode() + b'\0'
notes = note(1, bytes(pr)) + note(3, bytes(ps)) + note(0x53494749, bytes(si)) + note(0x46494c45, nf)
bnote = struct.pack('<III', 4, len(bid), 3) + b'GNU\0' + bid
head = (b'\x7fELF\2\1\1' + b'\0' * 9 + struct.pack('<HHIQQQIHHHHHH', 3, 183, 1, 0, 64, 0, 0, 64, 56, 1, 64, 0, 0) +
        struct.pack('<IIQQQQQQ', 4, 4, 120, 120, 0, len(bnote), len(bnote), 4) + bnote).ljust(4096, b'\0')
st = bytearray(4096)
struct.pack_into('<QQ', st, 0x100, stack + 0x200, base + 0x5678)
struct.pack_into('<QQ', st, 0x200, stack + 0x300, base + 0x9abc)
segs = [(base, head), (stack, bytes(st))]
off = 64 + 56 * (1 + len(segs))
eh = b'\x7fELF\2\1\1' + b'\0' * 9 + struct.pack('<HHIQQQIHHHHHH', 4, 183, 1, 0, 64, 0, 0, 64, 56, 1 + len(segs), 64, 0, 0)
ph = struct.pack('<IIQQQQQQ', 4, 0, off, 0, 0, len(notes), 0, 0)
off += len(notes)
for va, data in segs:
    ph += struct.pack('<IIQQQQQQ', 1, 6, off, va, 0, len(data), len(data), 4096)
    off += len(data)
with open(out, 'wb') as f:
    f.write(eh + ph + notes + b''.join(d for _, d in segs))
