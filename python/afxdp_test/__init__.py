# SPDX-License-Identifier: BSD-3-Clause
"""The Python library of the project's tests and benchmark: one owner per
concern. Imported as a package; whatever runs it puts <top>/python on
PYTHONPATH (meson's tests, scripts/bench.sh, scripts/demo.sh; the VM gets
the host's).

  env          the run's environment: outcomes, run id and names, logging,
               commands, the one process reaper, unmounting, the tools under
               test and the plugin (staged where EAL will load it)
  cleanup      the undo stack and signal handling
  reap         finding and removing what a run left behind (the leftover check)
  runner       one test script: preconditions, outcome, clean-up, leftovers
  topo         network namespaces and veth pairs
  testpmd      interactive dpdk-testpmd on a pseudo-terminal; secondaries
  cycles       port stop/start cycles in a running testpmd: the restart tests' one loop
  dpdk_output  what testpmd and dpdk-proc-info print, parsed
  state        the driver's state block (dump_priv) of a running process, as a dict
  frames       test frames built, verified, sent and captured; the IPv4 checksum
  traffic      frames sent, captured, sniffed in a namespace (threads of this process)
  hugepages    hugepages and a hugetlbfs for a primary that secondaries join
  bpf          the tests' XDP objects, a bpffs, programs pinned and attached
  cni          a fake AF_XDP device plugin (use_cni=1)
  hosts        two hosts joined through a forwarder; ping and a TCP transfer
  ovs          Open vSwitch with DPDK, run privately (its own database and sockets)
  l2fwd        the l2fwd example's programs run and their statistics parsed
"""
