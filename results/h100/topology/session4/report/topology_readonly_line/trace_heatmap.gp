# dissect report: Fine-grained trace of topology_readonly_line
# bundle: /tmp/dissect-topology/run1/topology_readonly_line
# data: trace_heatmap.dat (columns: access latency)
#
# Render: gnuplot trace_heatmap.gp   (in this directory; writes trace_heatmap.svg and trace_heatmap.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_readonly_line: Fine-grained trace (N = 241.00 KiB, s = 4 B)'
set xlabel 'access index (measured accesses of thread 0, in order)'
set ylabel 'latency (cycles)'
set xrange [-1:512]
set yrange [10.48:467.52]
set key top right
set arrow 1 from graph 0, first 46 to graph 1, first 46 nohead dt 3 lw 1.5 lc rgb '#7f7f7f' front
set label 1 'miss threshold 46 cycles' at graph 0.99, first 46 right offset char 0,0.7 tc rgb '#7f7f7f' front

set terminal svg size 1000,560 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'trace_heatmap.svg'
plot 'trace_heatmap.dat' using 1:($2 <= 46 ? $2 : NaN) with points pt 7 ps 0.45 lc rgb '#1f77b4' title 'hit', \
     '' using 1:($2 > 46 ? $2 : NaN) with points pt 7 ps 0.6 lc rgb '#d62728' title 'miss'

set terminal pngcairo size 1000,560 noenhanced font 'Sans,11' background rgb 'white'
set output 'trace_heatmap.png'
replot
set output
