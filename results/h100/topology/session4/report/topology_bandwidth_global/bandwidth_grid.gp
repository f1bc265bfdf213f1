# dissect report: Bandwidth over ILP and warps of topology_bandwidth_global
# bundle: /tmp/dissect-topology/run1/topology_bandwidth_global
# data: bandwidth_grid.dat (columns: warps ilp value gbps bytes_per_cycle bytes_loaded kernel_ms point_id)
#
# Render: gnuplot bandwidth_grid.gp   (in this directory; writes bandwidth_grid.svg and bandwidth_grid.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_bandwidth_global: Bandwidth over ILP and warps'
set xlabel 'warps (blocks x warps per block)'
set xrange [7434.24:34805.76]
set ylabel 'bandwidth (GB/s)'
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set key top left
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7
set style line 3 lc rgb '#2ca02c' lw 2 pt 7 ps 0.7
set label 1 'peak 2902 GB/s (ILP 8, 33792 warps)' at first 33792, first 2902.2064389598709 right offset char -1,0.8 tc rgb '#c0392b' front

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'bandwidth_grid.svg'
plot 'bandwidth_grid.dat' index 0 using 1:3 with linespoints ls 1 title 'ILP 1', \
     'bandwidth_grid.dat' index 1 using 1:3 with linespoints ls 2 title 'ILP 4', \
     'bandwidth_grid.dat' index 2 using 1:3 with linespoints ls 3 title 'ILP 8'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'bandwidth_grid.png'
replot
set output
