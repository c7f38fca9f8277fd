# macswap: each frame goes back out of the port it came in by, source and
# destination MAC swapped (app/testpmd/run.sh macswap): the sender gets its
# frames back.
set fwd macswap
show config fwd
start
