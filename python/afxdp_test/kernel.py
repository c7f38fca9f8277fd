# SPDX-License-Identifier: BSD-3-Clause
"""What the running kernel allows, asked of it with the smallest program
that needs it (bpf(2) through ctypes), never of the driver under test: the
independent fact a test holds the driver's own probe against, and what the
test summary prints so that a reader of a red run knows what kind of kernel
it ran on (scripts/test-summary.py).

    refusal = kernel.helper_refusal("bpf_xdp_adjust_meta")
    # None where the verifier loads a program calling it, else its last words

Kernels differ here for real: the same machine kind has come with a host
kernel that refuses bpf_xdp_adjust_meta to every XDP program and live-frames
BPF_PROG_RUN, and with one that allows both.
"""

import ctypes
import mmap
import os
import platform
import socket
import struct

from . import bpf, env

BPF_PROG_LOAD, BPF_PROG_TEST_RUN = 5, 10
BPF_PROG_TYPE_XDP = 6
BPF_F_TEST_XDP_LIVE_FRAMES = 1 << 1
XDP_DROP, XDP_PASS = 1, 2
LOG_SIZE = 1 << 16

# struct bpf_insn: code, dst_reg | src_reg << 4, off, imm
_INSN = struct.Struct("<BBhi")
BPF_ALU64_MOV_K = 0x07 | 0xb0       # BPF_ALU64 | BPF_MOV | BPF_K
BPF_CALL = 0x05 | 0x80              # BPF_JMP | BPF_CALL
BPF_EXIT = 0x05 | 0x90              # BPF_JMP | BPF_EXIT


class _ProgLoad(ctypes.Structure):
    """The BPF_PROG_LOAD part of union bpf_attr, as far as it is used here."""
    _fields_ = [("prog_type", ctypes.c_uint32), ("insn_cnt", ctypes.c_uint32),
                ("insns", ctypes.c_uint64), ("license", ctypes.c_uint64),
                ("log_level", ctypes.c_uint32), ("log_size", ctypes.c_uint32),
                ("log_buf", ctypes.c_uint64), ("kern_version", ctypes.c_uint32),
                ("prog_flags", ctypes.c_uint32), ("prog_name", ctypes.c_char * 16)]


class _TestRun(ctypes.Structure):
    """The BPF_PROG_TEST_RUN part of union bpf_attr."""
    _fields_ = [("prog_fd", ctypes.c_uint32), ("retval", ctypes.c_uint32),
                ("data_size_in", ctypes.c_uint32), ("data_size_out", ctypes.c_uint32),
                ("data_in", ctypes.c_uint64), ("data_out", ctypes.c_uint64),
                ("repeat", ctypes.c_uint32), ("duration", ctypes.c_uint32),
                ("ctx_size_in", ctypes.c_uint32), ("ctx_size_out", ctypes.c_uint32),
                ("ctx_in", ctypes.c_uint64), ("ctx_out", ctypes.c_uint64),
                ("flags", ctypes.c_uint32), ("cpu", ctypes.c_uint32),
                ("batch_size", ctypes.c_uint32)]


def release():
    return os.uname().release


def _sys_bpf(cmd, attr):
    nr = bpf._SYS_BPF.get(platform.machine())
    if nr is None:
        raise env.Skip("bpf(2) syscall number unknown for %s" % platform.machine())
    ret = env.libc.syscall(ctypes.c_long(nr), ctypes.c_int(cmd), ctypes.byref(attr),
                           ctypes.c_uint(ctypes.sizeof(attr)))
    return ret, ctypes.get_errno() if ret < 0 else 0


def _insn(code, dst=0, src=0, off=0, imm=0):
    return _INSN.pack(code, dst | (src << 4), off, imm)


def _load_xdp(insns, name):
    """(fd, None) for a loaded XDP program, or (None, the verifier's last
    line, or the error where it said nothing)."""
    code = ctypes.create_string_buffer(b"".join(insns))
    lic = ctypes.create_string_buffer(b"GPL")
    log = ctypes.create_string_buffer(LOG_SIZE)
    attr = _ProgLoad(prog_type=BPF_PROG_TYPE_XDP, insn_cnt=len(insns),
                     insns=ctypes.addressof(code), license=ctypes.addressof(lic),
                     log_level=1, log_size=LOG_SIZE, log_buf=ctypes.addressof(log),
                     prog_name=name.encode()[:15])
    fd, err = _sys_bpf(BPF_PROG_LOAD, attr)
    if fd >= 0:
        return fd, None
    lines = [l for l in log.value.decode(errors="replace").splitlines()
             if l.strip() and not l.startswith("processed ")]
    return None, lines[-1] if lines else os.strerror(err)


def helper_id(name):
    """The number of BPF helper `name` (bpf_xdp_adjust_meta: 54) in the
    running kernel's enum bpf_func_id, from its BTF."""
    want = "BPF_FUNC_" + name[len("bpf_"):] if name.startswith("bpf_") else name
    values = bpf.btf_enum_values("bpf_func_id")
    if want not in values:
        raise env.Skip("the running kernel has no BPF helper %s (%s)" % (name, want))
    return values[want]


def helper_refusal(name):
    """None where the kernel loads an XDP program calling helper `name`
    with (ctx, 0), else what its verifier said."""
    fd, why = _load_xdp([_insn(BPF_ALU64_MOV_K, dst=2, imm=0),
                         _insn(BPF_CALL, imm=helper_id(name)),
                         _insn(BPF_ALU64_MOV_K, dst=0, imm=XDP_PASS),
                         _insn(BPF_EXIT)], "afxt_helper")
    if fd is not None:
        os.close(fd)
    return why


def live_frames_refusal():
    """None where BPF_PROG_RUN of an XDP program (one that drops) takes
    BPF_F_TEST_XDP_LIVE_FRAMES, else the error."""
    fd, why = _load_xdp([_insn(BPF_ALU64_MOV_K, dst=0, imm=XDP_DROP), _insn(BPF_EXIT)],
                        "afxt_live")
    if fd is None:
        return "cannot load an XDP program: %s" % why
    frame = ctypes.create_string_buffer(bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x88, 0xb5])
                                        + bytes(50))
    attr = _TestRun(prog_fd=fd, data_size_in=64, data_in=ctypes.addressof(frame), repeat=1,
                    flags=BPF_F_TEST_XDP_LIVE_FRAMES)
    try:
        ret, err = _sys_bpf(BPF_PROG_TEST_RUN, attr)
    finally:
        os.close(fd)
    return None if ret == 0 else os.strerror(err)


AF_XDP, SOL_XDP, XDP_UMEM_REG = 44, 283, 4
XDP_UMEM_TX_METADATA_LEN = 1 << 2
SO_PREFER_BUSY_POLL = 69


class _UmemReg(ctypes.Structure):
    """struct xdp_umem_reg, as Linux 6.8+ reads it."""
    _fields_ = [("addr", ctypes.c_uint64), ("len", ctypes.c_uint64),
                ("chunk_size", ctypes.c_uint32), ("headroom", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("tx_metadata_len", ctypes.c_uint32)]


def tx_metadata_refusal():
    """None where the kernel registers a UMEM with Tx metadata
    (XDP_UMEM_TX_METADATA_LEN, 16 bytes), else the error."""
    fd = env.libc.socket(AF_XDP, socket.SOCK_RAW | socket.SOCK_CLOEXEC, 0)
    if fd < 0:
        return "no AF_XDP socket: %s" % os.strerror(ctypes.get_errno())
    area = mmap.mmap(-1, mmap.PAGESIZE)
    try:
        addr = ctypes.addressof(ctypes.c_char.from_buffer(area))
        reg = _UmemReg(addr=addr, len=mmap.PAGESIZE, chunk_size=2048,
                       flags=XDP_UMEM_TX_METADATA_LEN, tx_metadata_len=16)
        ret = env.libc.setsockopt(fd, SOL_XDP, XDP_UMEM_REG, ctypes.byref(reg),
                                  ctypes.sizeof(reg))
        err = ctypes.get_errno()
        del addr
    finally:
        os.close(fd)
        area.close()
    return None if ret == 0 else os.strerror(err)


def busy_poll_refusal():
    """None where a socket takes SO_PREFER_BUSY_POLL (Linux 5.11), else the error."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.setsockopt(socket.SOL_SOCKET, SO_PREFER_BUSY_POLL, 1)
        except OSError as e:
            return e.strerror
    return None


def multi_buffer():
    """Whether the kernel has AF_XDP multi-buffer (XDP_USE_SG, Linux 6.6): its
    struct xdp_sock has the member sg. The tests' own answer, so that a
    driver that stops asking the kernel fails rather than skips."""
    return "sg" in bpf.btf_struct_members("xdp_sock")


XDP_TX_RING, XDP_MAX_TX_SKB_BUDGET = 3, 9


def tx_budget_refusal():
    """None where an AF_XDP socket with a Tx ring takes XDP_MAX_TX_SKB_BUDGET
    (Linux 6.17), else the error."""
    fd = env.libc.socket(AF_XDP, socket.SOCK_RAW | socket.SOCK_CLOEXEC, 0)
    if fd < 0:
        return "no AF_XDP socket: %s" % os.strerror(ctypes.get_errno())
    try:
        size, budget = ctypes.c_uint(64), ctypes.c_uint(32)
        if env.libc.setsockopt(fd, SOL_XDP, XDP_TX_RING, ctypes.byref(size),
                               ctypes.sizeof(size)) != 0:
            return "no Tx ring: %s" % os.strerror(ctypes.get_errno())
        ret = env.libc.setsockopt(fd, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, ctypes.byref(budget),
                                  ctypes.sizeof(budget))
        return None if ret == 0 else os.strerror(ctypes.get_errno())
    finally:
        os.close(fd)


def bpffs_mounted(path="/sys/fs/bpf"):
    """Whether a bpf filesystem is mounted at `path` in this process's
    mount namespace."""
    with open("/proc/self/mounts") as f:
        return any(len(fields) > 2 and fields[1] == path and fields[2] == "bpf"
                   for fields in (line.split() for line in f))


def facts():
    """[(what, answer)] for the test summary: this kernel, as asked here."""
    def asked(refusal):
        return "allowed" if refusal is None else "refused (%s)" % refusal
    return [("release", release()),
            ("bpf_xdp_adjust_meta", asked(helper_refusal("bpf_xdp_adjust_meta"))),
            ("live frames (BPF_PROG_RUN)", asked(live_frames_refusal())),
            ("Tx metadata (XDP_UMEM_TX_METADATA_LEN)", asked(tx_metadata_refusal())),
            ("busy polling (SO_PREFER_BUSY_POLL)", asked(busy_poll_refusal())),
            ("AF_XDP multi-buffer (struct xdp_sock.sg)", "yes" if multi_buffer() else "no"),
            ("bpffs at /sys/fs/bpf", "mounted" if bpffs_mounted() else "not mounted")]
