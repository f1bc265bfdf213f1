# dissect report: Fine-grained trace of topology_texture_sets
# bundle: /tmp/dissect-topology/run1/topology_texture_sets
# data: trace_heatmap.dat (matrix)
# data: trace_heatmap_rows.dat (columns: row point_id size_bytes stride_bytes label)
#
# Render: gnuplot trace_heatmap.gp   (in this directory; writes trace_heatmap.svg and trace_heatmap.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_texture_sets: Fine-grained trace'
set xlabel 'access index (measured accesses of thread 0, in order)'
set ylabel 'array size N'
set xrange [-0.5:511.5]
set yrange [-0.5:63.5]
set ytics ('246656 B' 0, '250880 B' 4, '254976 B' 8, '259200 B' 12, '263296 B' 16, '267520 B' 20, '271616 B' 24, '275840 B' 28, '279936 B' 32, '284160 B' 36, '288256 B' 40, '292480 B' 44, '296576 B' 48, '300800 B' 52, '304896 B' 56, '309120 B' 60, '312192 B' 63)
set tics out
set grid noxtics noytics
unset key
set palette defined (0 '#440154', 1 '#482878', 2 '#3e4989', 3 '#31688e', 4 '#26828e', 5 '#1f9e89', 6 '#35b779', 7 '#6ece58', 8 '#b5de2b', 9 '#fde725')
set cbrange [93:1125]
set cblabel 'latency (cycles)'
set rmargin 12

set terminal svg size 1000,620 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'trace_heatmap.svg'
plot 'trace_heatmap.dat' matrix with image

set terminal pngcairo size 1000,620 noenhanced font 'Sans,11' background rgb 'white'
set output 'trace_heatmap.png'
replot
set output
