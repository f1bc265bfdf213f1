# dissect report: Fine-grained trace of topology_readonly_sets
# bundle: /tmp/dissect-topology/run1/topology_readonly_sets
# data: trace_heatmap.dat (matrix)
# data: trace_heatmap_rows.dat (columns: row point_id size_bytes stride_bytes label)
#
# Render: gnuplot trace_heatmap.gp   (in this directory; writes trace_heatmap.svg and trace_heatmap.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_readonly_sets: Fine-grained trace'
set xlabel 'access index (measured accesses of thread 0, in order)'
set ylabel 'array size N'
set xrange [-0.5:511.5]
set yrange [-0.5:63.5]
set ytics ('246784 B' 0, '251008 B' 4, '255104 B' 8, '259328 B' 12, '263424 B' 16, '267648 B' 20, '271744 B' 24, '275968 B' 28, '280064 B' 32, '284288 B' 36, '288384 B' 40, '292608 B' 44, '296704 B' 48, '300928 B' 52, '305024 B' 56, '309248 B' 60, '312320 B' 63)
set tics out
set grid noxtics noytics
unset key
set palette defined (0 '#440154', 1 '#482878', 2 '#3e4989', 3 '#31688e', 4 '#26828e', 5 '#1f9e89', 6 '#35b779', 7 '#6ece58', 8 '#b5de2b', 9 '#fde725')
set cbrange [42:1016]
set cblabel 'latency (cycles)'
set rmargin 12

set terminal svg size 1000,620 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'trace_heatmap.svg'
plot 'trace_heatmap.dat' matrix with image

set terminal pngcairo size 1000,620 noenhanced font 'Sans,11' background rgb 'white'
set output 'trace_heatmap.png'
replot
set output
