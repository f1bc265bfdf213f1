# dissect report: Latency over stride of topology_page_size
# bundle: /tmp/dissect-topology/run1/topology_page_size
# data: latency_over_stride.dat (columns: stride_bytes stride_elements mean median p5 p95 samples point_id)
#
# Render: gnuplot latency_over_stride.gp   (in this directory; writes latency_over_stride.svg and latency_over_stride.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_page_size: Latency over stride'
set logscale x 2
set xrange [58514.28571:37580963.84]
set xtics ('64 KiB' 65536, '128 KiB' 131072, '256 KiB' 262144, '512 KiB' 524288, '1 MiB' 1048576, '2 MiB' 2097152, '4 MiB' 4194304, '8 MiB' 8388608, '16 MiB' 16777216, '32 MiB' 33554432)
set mxtics default
set xlabel 'stride s'
set ylabel 'latency (cycles)'
set yrange [281.8536523:297.2225195]
set key top left
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'latency_over_stride.svg'
plot 'latency_over_stride.dat' using 1:3 with linespoints ls 1 title 'mean'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'latency_over_stride.png'
replot
set output
