# io: frames in at port 0 go out of port 1 untouched, and the reverse
# (app/testpmd/run.sh io). The far end's rx_packets counts what was forwarded.
set fwd io
show config fwd
start
