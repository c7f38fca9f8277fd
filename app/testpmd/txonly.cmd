# txonly: testpmd builds 64-byte UDP frames and sends them out of port 0
# (app/testpmd/run.sh txonly); the peer's rx_packets counts them. On a veth the
# transmit is copy mode: every frame costs the kernel an skb and a copy.
set fwd txonly
set txpkts 64
show config fwd
start
