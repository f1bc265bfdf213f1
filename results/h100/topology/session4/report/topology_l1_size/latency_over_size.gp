# dissect report: Latency over array size N of topology_l1_size
# bundle: /tmp/dissect-topology/run1/topology_l1_size
# data: latency_over_size.dat (columns: size_bytes mean median p5 p95 samples point_id)
#
# Render: gnuplot latency_over_size.gp   (in this directory; writes latency_over_size.svg and latency_over_size.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_l1_size: Latency over array size N'
set logscale x 2
set xrange [914.2857143:1174405.12]
set xtics ('1 KiB' 1024, '2 KiB' 2048, '4 KiB' 4096, '8 KiB' 8192, '16 KiB' 16384, '32 KiB' 32768, '64 KiB' 65536, '128 KiB' 131072, '256 KiB' 262144, '512 KiB' 524288, '1 MiB' 1048576)
set mxtics default
set xlabel 'array size N'
set ylabel 'latency per access (cycles)'
set yrange [19.17519336:305.0409871]
set key top left
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7
set style textbox opaque noborder
set arrow 1 from first 246784, graph 0 to first 246784, graph 1 nohead dt 2 lw 2 lc rgb '#c0392b' front
set label 1 'cache_size = 241 KiB' at first 246784, graph 0.95 right offset char -0.6,0 boxed tc rgb '#c0392b' front

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'latency_over_size.svg'
plot 'latency_over_size.dat' using 1:4:5 with filledcurves fc rgb '#1f77b4' fs transparent solid 0.15 noborder title 'p5-p95', \
     'latency_over_size.dat' using 1:2 with linespoints ls 1 title 'mean'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'latency_over_size.png'
replot
set output
