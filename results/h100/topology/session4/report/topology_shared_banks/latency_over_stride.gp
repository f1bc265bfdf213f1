# dissect report: Latency over stride of topology_shared_banks
# bundle: /tmp/dissect-topology/run1/topology_shared_banks
# data: latency_over_stride.dat (columns: stride_bytes stride_elements mean median p5 p95 samples point_id)
#
# Render: gnuplot latency_over_stride.gp   (in this directory; writes latency_over_stride.svg and latency_over_stride.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_shared_banks: Latency over stride'
set xlabel 'stride (4-byte elements)'
set xrange [-2.56:66.56]
set ylabel 'latency (cycles)'
set yrange [27.91625:98.911875]
set key top left
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'latency_over_stride.svg'
plot 'latency_over_stride.dat' using 2:3 with linespoints ls 1 title 'mean'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'latency_over_stride.png'
replot
set output
