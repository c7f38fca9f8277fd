# multiqueue: one port with two queues (devarg queue_count=2, --rxq=2 --txq=2),
# one AF_XDP socket each, both polled by one lcore (app/testpmd/run.sh
# multiqueue). On a veth, a frame's queue is chosen by the sending CPU: the
# runner's generator sends from two CPUs. Per-queue counters:
# `show port xstats 0` (rx_q0_*, rx_q1_*).
set fwd rxonly
show port info 0
start
