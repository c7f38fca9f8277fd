#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""l4_pass.py serve|send ADDR PORT BYTES

TCP and UDP through the local stacks, every byte checked: "serve" binds a
TCP listener and a UDP socket to ADDR:PORT, takes one connection and reads
BYTES of a known pattern from it until the sender closes, then the UDP
datagrams that came meanwhile; "send" connects (retrying while the server
starts), sends the BYTES, then UDP_COUNT datagrams, then closes. Both exit
0 when everything arrived intact, 1 otherwise; serve prints what it got.

For vm-rx.sh: with the sender's checksum offload on, the segments and
datagrams leave its stack CHECKSUM_PARTIAL, and a receiving stack that
gets them as plain bytes drops them (bad checksum): the connection or the
datagrams do not arrive. The listener (so the connection) also takes only
segments whose skb carries a hash (a classic BPF filter on the kernel's
skb->hash, not one it computes): the sender's TCP stack sets one, which
a veth pair hands on.
"""
import ctypes
import socket
import sys
import time

UDP_COUNT = 10
UDP_LEN = 1000
TIMEOUT = 10


def pattern(n, seed):
    return bytes((i * 7 + seed) & 0xff for i in range(n))


class SockFilter(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint16), ('jt', ctypes.c_uint8), ('jf', ctypes.c_uint8),
                ('k', ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.POINTER(SockFilter))]


SO_ATTACH_FILTER = 26
SKF_AD_RXHASH = -0x1000 + 32
BPF_LD_W_ABS, BPF_JEQ_K, BPF_RET_K = 0x20, 0x15, 0x06


def only_hashed(sock):
    """Drop what arrives without skb->hash (raw: no flow dissection)."""
    prog = (SockFilter * 4)(
        SockFilter(BPF_LD_W_ABS, 0, 0, SKF_AD_RXHASH & 0xffffffff),
        SockFilter(BPF_JEQ_K, 1, 0, 0),
        SockFilter(BPF_RET_K, 0, 0, 0xffffffff),
        SockFilter(BPF_RET_K, 0, 0, 0))
    fprog = SockFprog(len(prog), prog)
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER,
                    ctypes.string_at(ctypes.addressof(fprog), ctypes.sizeof(fprog)))


def serve(addr, port, nbytes):
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    only_hashed(tcp)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind((addr, port))
    tcp.listen(1)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((addr, port))
    tcp.settimeout(TIMEOUT)
    got = b''
    try:
        conn, _ = tcp.accept()
        conn.settimeout(TIMEOUT)
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += chunk
        conn.close()
    except OSError as e:
        print(f'# l4_pass: tcp: {e}')
    udp.settimeout(0.5)
    good = 0
    try:
        while True:
            data = udp.recv(65536)
            good += data == pattern(UDP_LEN, 1)
    except OSError:
        pass
    tcp_ok = got == pattern(nbytes, 0)
    print(f'# l4_pass: tcp {len(got)}/{nbytes} bytes{"" if tcp_ok else " (not intact)"},'
          f' udp {good}/{UDP_COUNT} datagrams intact')
    return tcp_ok and good == UDP_COUNT


def send(addr, port, nbytes):
    deadline = time.monotonic() + TIMEOUT
    while True:
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.settimeout(TIMEOUT)
        try:
            tcp.connect((addr, port))
            break
        except ConnectionRefusedError:
            tcp.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    tcp.sendall(pattern(nbytes, 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(UDP_COUNT):
        udp.sendto(pattern(UDP_LEN, 1), (addr, port))
    time.sleep(0.2)
    tcp.close()
    return True


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ('serve', 'send'):
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    role, addr, port, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    try:
        ok = (serve if role == 'serve' else send)(addr, port, nbytes)
    except OSError as e:
        print(f'# l4_pass {role}: {e}')
        ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
