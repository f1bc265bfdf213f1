# dissect report: Latency over block size (line by occupancy) of topology_l2_line_blocks
# bundle: /tmp/dissect-topology/run1/topology_l2_line_blocks
# data: latency_over_block.dat (columns: block_bytes size_bytes mean median p5 p95 samples point_id)
#
# Render: gnuplot latency_over_block.gp   (in this directory; writes latency_over_block.svg and latency_over_block.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_l2_line_blocks: Latency over block size (line by occupancy)'
set logscale x 2
set xrange [57.14285714:2293.76]
set xtics ('64 B' 64, '128 B' 128, '256 B' 256, '512 B' 512, '1 KiB' 1024, '2 KiB' 2048)
set mxtics default
set xlabel 'block size b (one access per block)'
set ylabel 'latency per access (cycles)'
set yrange [262.9264242:547.8853342]
set key top right
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7
set style textbox opaque noborder
set arrow 1 from first 128, graph 0 to first 128, graph 1 nohead dt 2 lw 2 lc rgb '#c0392b' front
set label 1 'line_capacity: line = 128 B, fits from 256 B' at first 128, graph 0.95 left offset char 0.6,0 boxed tc rgb '#c0392b' front

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'latency_over_block.svg'
plot 'latency_over_block.dat' using 1:3 with linespoints ls 1 title 'mean'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'latency_over_block.png'
replot
set output
