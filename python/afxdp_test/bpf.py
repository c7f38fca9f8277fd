# SPDX-License-Identifier: BSD-3-Clause
"""XDP programs that are not the driver's: the tests' own BPF objects
(bpf/*.bpf.c, built by meson), a bpffs of the run, programs loaded and pinned
with bpftool, and attached to an interface by the test, as someone else
(a device plugin, an operator) would.

    with Bpffs() as fs:
        prog = fs.load(obj("xdp_ethertype"), "redirect")     # pins prog and maps
        with prog.attached(port):                             # ip link ... xdp pinned
            ... dp_path=prog.map_path("xsks_map") ...

bpffs: `ip netns exec` gives its command a mount namespace with a fresh /sys,
so a bpffs at /sys/fs/bpf (if the host has one: this one does not) is not
seen there. The run mounts its own bpffs under its run directory
(/run/af-xdp-direct/<rid>/bpffs), which `ip netns exec` leaves in place; it is
unmounted (dropping every pin) when the run ends, and reaped like any mount of
the run if the test is killed.

Environment: AFXDP_BPF_DIR, the directory of the built objects (meson sets
it); unset, the build directory the plugin (AFXDP_PLUGIN) belongs to is
searched.
"""

import contextlib
import ctypes
import json
import os
import platform
import shutil
import struct

from . import cleanup, env

# Where meson puts the objects, relative to the build directory.
BUILD_SUBDIR = os.path.join("tests", "integration", "bpf")
# The plugin's place in the build directory: drivers/net/af_xdp/<plugin>.
PLUGIN_DEPTH = 3

# bpf(2)
_SYS_BPF = {"x86_64": 321, "aarch64": 280, "armv7l": 386, "ppc64le": 361, "s390x": 351,
            "riscv64": 280}
BPF_OBJ_GET = 7


def obj_dir():
    d = os.environ.get("AFXDP_BPF_DIR")
    if d:
        return d
    p = env.plugin_requested()
    if p:
        build = os.path.realpath(p)
        for _ in range(PLUGIN_DEPTH + 1):
            build = os.path.dirname(build)
        return os.path.join(build, BUILD_SUBDIR)
    return None


def obj(name):
    """The path of the built object `name` (bpf/<name>.bpf.c)."""
    d = obj_dir()
    path = os.path.join(d, name + ".bpf.o") if d else None
    if not path or not os.path.isfile(path):
        raise env.Skip("BPF object %s.bpf.o not built (%s; build with ninja, or set "
                       "AFXDP_BPF_DIR)" % (name, path or "AFXDP_BPF_DIR and AFXDP_PLUGIN unset"))
    return path


def bpftool():
    path = shutil.which("bpftool")
    if not path:
        raise env.Skip("bpftool not found (Debian package bpftool; scripts/setup.sh installs it)")
    return path


VMLINUX_BTF = "/sys/kernel/btf/vmlinux"
BTF_MAGIC = 0xEB9F
BTF_HEADER = struct.Struct("=HBBIIIII")      # struct btf_header (include/uapi/linux/btf.h)
BTF_TYPE = struct.Struct("=III")             # struct btf_type: name_off, info, size/type
BTF_KIND_ENUM, BTF_KIND_FUNC, BTF_KIND_ENUM64 = 6, 12, 19
# Bytes after a struct btf_type, by kind: (fixed, per vlen item).
BTF_EXTRA = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8), 13: (0, 8), 14: (4, 0),
             15: (0, 12), 17: (4, 0), 19: (0, 12)}


def _read_btf(path):
    """(raw bytes, string section) of the BTF at `path`; HarnessError if it is not BTF."""
    with open(path, "rb") as f:
        data = f.read()
    magic, _, _, hdr_len, type_off, type_len, str_off, str_len = BTF_HEADER.unpack_from(data)
    if magic != BTF_MAGIC:
        raise env.HarnessError("%s is not BTF (magic 0x%x)" % (path, magic))
    return data, data[hdr_len + str_off:hdr_len + str_off + str_len], \
        (hdr_len + type_off, hdr_len + type_off + type_len)


def _btf_types(data, span):
    """Each type of the BTF: (kind, name offset, vlen, where its items start, item size)."""
    pos, end = span
    unpack = BTF_TYPE.unpack_from
    while pos < end:
        name_off, info, _ = unpack(data, pos)
        kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
        pos += BTF_TYPE.size
        fixed, item = BTF_EXTRA.get(kind, (0, 0))
        yield kind, name_off, vlen, pos, item
        pos += fixed + vlen * item


def _string_offsets(strings, names):
    """{string offset: name} of the names in the string section (BTF keeps
    one copy of each string: a name it lacks no type has)."""
    out = {}
    for name in names:
        at = strings.find(b"\0" + name.encode() + b"\0")
        if at >= 0:
            out[at + 1] = name
    return out


def btf_names(path=VMLINUX_BTF, funcs=(), enum_values=()):
    """Which of `funcs` are FUNC types and which of `enum_values` are values
    of an ENUM or ENUM64 in the BTF at `path`: (set, set). Read with python
    from the BTF's own layout, not `bpftool btf dump` (which writes the
    whole of vmlinux's BTF as text, 13 to 15 s under the VM's emulated
    CPU). HarnessError if the file is not BTF."""
    data, strings, span = _read_btf(path)
    want_funcs, want_values = _string_offsets(strings, funcs), _string_offsets(strings, enum_values)
    found_funcs, found_values = set(), set()
    if not want_funcs and not want_values:
        return found_funcs, found_values
    for kind, name_off, vlen, pos, item in _btf_types(data, span):
        if kind == BTF_KIND_FUNC and name_off in want_funcs:
            found_funcs.add(want_funcs[name_off])
        elif want_values and kind in (BTF_KIND_ENUM, BTF_KIND_ENUM64):
            for i in range(vlen):
                off = struct.unpack_from("=I", data, pos + i * item)[0]
                if off in want_values:
                    found_values.add(want_values[off])
        if len(found_funcs) == len(want_funcs) and len(found_values) == len(want_values):
            break
    return found_funcs, found_values


BTF_KIND_STRUCT = 4


def btf_struct_members(struct_name, path=VMLINUX_BTF):
    """The member names of the STRUCT called `struct_name` in the BTF at
    `path` (the first of that name); an empty list if there is none."""
    data, strings, span = _read_btf(path)
    want = _string_offsets(strings, [struct_name])
    if not want:
        return []

    def name_at(off):
        return strings[off:strings.index(b"\0", off)].decode()
    for kind, name_off, vlen, pos, item in _btf_types(data, span):
        if kind == BTF_KIND_STRUCT and name_off in want:
            return [name_at(struct.unpack_from("=I", data, pos + i * item)[0])
                    for i in range(vlen)]
    return []


def btf_enum_values(enum_name, path=VMLINUX_BTF):
    """{enumerator: value} of the ENUM (or ENUM64) called `enum_name` in the
    BTF at `path`; {} if there is none."""
    data, strings, span = _read_btf(path)
    want = _string_offsets(strings, [enum_name])
    if not want:
        return {}

    def name_at(off):
        return strings[off:strings.index(b"\0", off)].decode()
    for kind, name_off, vlen, pos, item in _btf_types(data, span):
        if kind not in (BTF_KIND_ENUM, BTF_KIND_ENUM64) or name_off not in want:
            continue
        out = {}
        for i in range(vlen):
            if kind == BTF_KIND_ENUM:
                off, val = struct.unpack_from("=Ii", data, pos + i * item)
            else:
                off, lo, hi = struct.unpack_from("=III", data, pos + i * item)
                val = lo | hi << 32
            out[name_at(off)] = val
        return out
    return {}


class KernelXdp:
    """What the running kernel offers the driver's redirect, read from its
    BTF (btf_names; never from the driver under test):
      direct   BPF_FUNC_redirect_xsk in enum bpf_func_id (our patched kernel)
      batched  the function xdp_do_redirect_xsk_batch: bpf_redirect_map()
               into an XSKMAP received in batches (the series' first part)"""

    def __init__(self):
        try:
            funcs, values = btf_names(funcs=["xdp_do_redirect_xsk_batch"],
                                      enum_values=["BPF_FUNC_redirect_xsk"])
        except OSError as e:
            raise env.Skip("cannot read the kernel's BTF: %s" % e)
        self.direct = "BPF_FUNC_redirect_xsk" in values
        self.batched = "xdp_do_redirect_xsk_batch" in funcs

    def __str__(self):
        return "the running kernel %s bpf_redirect_xsk and %s the map's redirects into an " \
            "XSKMAP" % ("has" if self.direct else "lacks",
                        "batches" if self.batched else "does not batch")


def obj_get(path):
    """A file descriptor of the BPF object pinned at `path` (bpf(BPF_OBJ_GET)),
    as the AF_XDP device plugin holds its XSKMAP. The caller closes it."""
    nr = _SYS_BPF.get(platform.machine())
    if nr is None:
        raise env.Skip("bpf(2) syscall number unknown for %s" % platform.machine())

    class ObjAttr(ctypes.Structure):
        _fields_ = [("pathname", ctypes.c_uint64), ("bpf_fd", ctypes.c_uint32),
                    ("file_flags", ctypes.c_uint32)]

    name = ctypes.create_string_buffer(os.fsencode(path))
    attr = ObjAttr(ctypes.addressof(name), 0, 0)
    fd = env.libc.syscall(ctypes.c_long(nr), ctypes.c_int(BPF_OBJ_GET), ctypes.byref(attr),
                          ctypes.c_uint(ctypes.sizeof(attr)))
    if fd < 0:
        err = ctypes.get_errno()
        raise env.HarnessError("bpf(BPF_OBJ_GET, %s): %s" % (path, os.strerror(err)))
    return fd


class Program:
    """A program loaded and pinned by bpftool, with its maps pinned beside it."""

    def __init__(self, fs, pin, maps_dir, source):
        self.fs, self.pin, self.maps_dir, self.source = fs, pin, maps_dir, source
        info = json.loads(env.run([bpftool(), "-j", "prog", "show", "pinned", pin]).stdout)
        self.id = int(info["id"])
        self.name = info.get("name", "")

    def map_path(self, name):
        return os.path.join(self.maps_dir, name)

    def attach(self, iface, mode="xdp"):
        """Attach with `ip link set dev <iface> <mode> pinned <pin>` (mode:
        xdp = the kernel's choice, xdpdrv, xdpgeneric). Returns the clean-up
        handle (cleanup.release it to detach); detaches only if the program
        attached is still this one."""
        iface.ip("link", "set", "dev", iface.name, mode, "pinned", self.pin)
        env.log("attached %s (id %d, %s) to %s with ip link ... %s pinned"
                % (self.name, self.id, os.path.basename(self.source), iface, mode))
        return cleanup.push("XDP program id %d on %s" % (self.id, iface),
                            lambda: detach_if(iface, self.id))


def marked_programs():
    """The loaded copies of the driver's built-in programs, with their owner
    mark (`bpftool prog show` prints it as metadata): [{'id', 'name', 'pid',
    'start_time'}]."""
    out = json.loads(env.run([bpftool(), "-j", "prog", "show"]).stdout or "[]")
    found = []
    for p in out:
        owner = (p.get("metadata") or {}).get("afxdp_owner")
        if owner and owner.get("magic"):
            found.append({"id": int(p["id"]), "name": p.get("name", ""),
                          "pid": int(owner["pid"]), "start_time": int(owner["start_time"])})
    return found


def prog_exists(prog_id):
    """Whether program `prog_id` is still loaded in the kernel."""
    return env.run([bpftool(), "prog", "show", "id", str(prog_id)], check=False).returncode == 0


def attached_prog_id(iface):
    """The id of the XDP program attached to `iface` (any mode), or None."""
    x = iface.link().get("xdp")
    if not x:
        return None
    if "prog" in x:
        return int(x["prog"]["id"])
    for a in x.get("attached", []):
        if "prog" in a:
            return int(a["prog"]["id"])
    return None


def detach_if(iface, prog_id):
    """`ip link set dev <iface> xdp off` if program `prog_id` is the one attached."""
    try:
        now = attached_prog_id(iface)
    except env.HarnessError:
        return          # the interface (or its namespace) is gone: nothing attached
    if now == prog_id:
        x = iface.link().get("xdp", {})
        mode = {1: "xdpdrv", 2: "xdpgeneric", 3: "xdpoffload"}.get(x.get("mode"), "xdp")
        iface.ip("link", "set", "dev", iface.name, mode, "off")
        env.log("detached XDP program id %d from %s" % (prog_id, iface))


def attach_object(iface, path, section="xdp", mode="xdp"):
    """Load and attach an object straight with `ip link set ... xdp obj` (no
    pin, no libxdp: a program as an operator attaches it). Returns (program
    id, clean-up handle)."""
    iface.ip("link", "set", "dev", iface.name, mode, "obj", path, "sec", section)
    pid = attached_prog_id(iface)
    if pid is None:
        raise env.HarnessError("ip link set dev %s %s obj %s: no program attached afterwards"
                               % (iface.name, mode, path))
    env.log("attached %s (id %d) to %s with ip link ... %s obj" % (os.path.basename(path), pid,
                                                                    iface, mode))
    return pid, cleanup.push("XDP program id %d on %s" % (pid, iface),
                             lambda: detach_if(iface, pid))


class Bpffs:
    """A bpffs mounted in the run directory for the duration of the block."""

    def __init__(self):
        cleanup.install()
        self.mount = os.path.join(env.run_dir(), "bpffs")
        self._undo = None

    def __enter__(self):
        bpftool()
        os.makedirs(self.mount, mode=0o700, exist_ok=True)
        self._undo = cleanup.push("bpffs %s" % self.mount, self._release)
        cp = env.run(["mount", "-t", "bpf", "afxt-%s" % env.run_id(), self.mount], check=False)
        if cp.returncode != 0:
            raise env.Skip("cannot mount a bpffs (mount -t bpf): %s" % cp.stderr.strip())
        env.log("bpffs mounted at %s" % self.mount)
        return self

    def __exit__(self, *exc):
        cleanup.release(self._undo)
        return False

    def load(self, path, name):
        """bpftool prog load <path> <bpffs>/<name> type xdp pinmaps <bpffs>/<name>-maps"""
        pin = os.path.join(self.mount, name)
        maps = os.path.join(self.mount, name + "-maps")
        env.run([bpftool(), "prog", "load", path, pin, "type", "xdp", "pinmaps", maps])
        prog = Program(self, pin, maps, path)
        env.log("loaded %s as %s (id %d), maps pinned in %s: %s" % (
            os.path.basename(path), prog.name, prog.id, maps, ", ".join(sorted(os.listdir(maps)))))
        return prog

    def _release(self):
        if env.keep():
            env.log("AFXDP_KEEP: leaving bpffs %s" % self.mount)
            return
        if os.path.ismount(self.mount):
            env.unmount(self.mount)
        if os.path.isdir(self.mount):
            os.rmdir(self.mount)


@contextlib.contextmanager
def libxdp_bpffs():
    """A bpffs for libxdp (LIBXDP_BPFFS) in the processes started in the block.

    libxdp's dispatcher needs a bpffs to pin its programs, and `ip netns
    exec` hides /sys/fs/bpf: without this, the driver's program is always
    attached alone. With it, the dispatcher is used where the kernel lets
    libxdp load it (the VM); where it cannot (this host: EPERM), the program
    is still attached alone. The port's state block says which
    (state.read(tp)['xdp.dispatcher'])."""
    old = os.environ.get("LIBXDP_BPFFS")
    with Bpffs() as fs:
        os.environ["LIBXDP_BPFFS"] = fs.mount
        try:
            yield fs
        finally:
            if old is None:
                os.environ.pop("LIBXDP_BPFFS", None)
            else:
                os.environ["LIBXDP_BPFFS"] = old
