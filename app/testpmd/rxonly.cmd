# rxonly: receive on port 0 and free every frame (app/testpmd/run.sh rxonly).
# With afxdp-gen sending into the peer, `show port stats 0` gives the rate and
# `show port xstats 0` the driver's batch counters and the kernel's drops.
set fwd rxonly
show port info 0
start
