# dissect report: Latency over array size N of topology_l2_size
# bundle: /tmp/dissect-topology/run1/topology_l2_size
# data: latency_over_size.dat (columns: size_bytes mean median p5 p95 samples point_id)
#
# Render: gnuplot latency_over_size.gp   (in this directory; writes latency_over_size.svg and latency_over_size.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_l2_size: Latency over array size N'
set logscale x 2
set xrange [234057.1429:150323855.4]
set xtics ('256 KiB' 262144, '512 KiB' 524288, '1 MiB' 1048576, '2 MiB' 2097152, '4 MiB' 4194304, '8 MiB' 8388608, '16 MiB' 16777216, '32 MiB' 33554432, '64 MiB' 67108864, '128 MiB' 134217728)
set mxtics default
set xlabel 'array size N'
set ylabel 'latency per access (cycles)'
set yrange [219.372:982.478]
set key top left
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7
set style textbox opaque noborder
set arrow 1 from first 24117248, graph 0 to first 24117248, graph 1 nohead dt 2 lw 2 lc rgb '#c0392b' front
set label 1 'cache_size = 23 MiB' at first 24117248, graph 0.95 right offset char -0.6,0 boxed tc rgb '#c0392b' front

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'latency_over_size.svg'
plot 'latency_over_size.dat' using 1:4:5 with filledcurves fc rgb '#1f77b4' fs transparent solid 0.15 noborder title 'p5-p95', \
     'latency_over_size.dat' using 1:3 with lines lc rgb '#555555' dt 2 lw 1.5 title 'median', \
     'latency_over_size.dat' using 1:2 with linespoints ls 1 title 'mean'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'latency_over_size.png'
replot
set output
