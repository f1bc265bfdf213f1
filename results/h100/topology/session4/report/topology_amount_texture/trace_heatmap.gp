# dissect report: Fine-grained trace of topology_amount_texture
# bundle: /tmp/dissect-topology/run1/topology_amount_texture
# data: trace_heatmap.dat (matrix)
# data: trace_heatmap_rows.dat (columns: row point_id size_bytes stride_bytes label)
#
# Render: gnuplot trace_heatmap.gp   (in this directory; writes trace_heatmap.svg and trace_heatmap.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_amount_texture: Fine-grained trace'
set xlabel 'access index (measured accesses of thread 0, in order)'
set ylabel 'point'
set xrange [-0.5:511.5]
set yrange [-0.5:30.5]
set ytics ('point 0' 0, 'point 2' 2, 'point 4' 4, 'point 6' 6, 'point 8' 8, 'point 10' 10, 'point 12' 12, 'point 14' 14, 'point 16' 16, 'point 18' 18, 'point 20' 20, 'point 22' 22, 'point 24' 24, 'point 26' 26, 'point 28' 28, 'point 30' 30)
set tics out
set grid noxtics noytics
unset key
set palette defined (0 '#440154', 1 '#482878', 2 '#3e4989', 3 '#31688e', 4 '#26828e', 5 '#1f9e89', 6 '#35b779', 7 '#6ece58', 8 '#b5de2b', 9 '#fde725')
set cbrange [91:93]
set cblabel 'latency (cycles)'
set rmargin 12

set terminal svg size 1000,620 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'trace_heatmap.svg'
plot 'trace_heatmap.dat' matrix with image

set terminal pngcairo size 1000,620 noenhanced font 'Sans,11' background rgb 'white'
set output 'trace_heatmap.png'
replot
set output
