# dissect report: Latency over array size N of topology_l1_sets
# bundle: /tmp/dissect-topology/run1/topology_l1_sets
# data: latency_over_size.dat (columns: size_bytes mean median p5 p95 samples point_id)
#
# Render: gnuplot latency_over_size.gp   (in this directory; writes latency_over_size.svg and latency_over_size.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_l1_sets: Latency over array size N'
set xrange [244162.56:314941.44]
set xtics ('240' 245760, '248' 253952, '256' 262144, '264' 270336, '272' 278528, '280' 286720, '288' 294912, '296' 303104, '304' 311296)
set xlabel 'array size N (KiB)'
set ylabel 'latency per access (cycles)'
set yrange [0:851.44]
set key top left
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'latency_over_size.svg'
plot 'latency_over_size.dat' using 1:4:5 with filledcurves fc rgb '#1f77b4' fs transparent solid 0.15 noborder title 'p5-p95', \
     'latency_over_size.dat' using 1:3 with lines lc rgb '#555555' dt 2 lw 1.5 title 'median', \
     'latency_over_size.dat' using 1:2 with linespoints ls 1 title 'mean'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'latency_over_size.png'
replot
set output
