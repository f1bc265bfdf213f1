# dissect report: Fine-grained trace of topology_constant_l15_size
# bundle: /tmp/dissect-topology/run1/topology_constant_l15_size
# data: trace_heatmap.dat (matrix)
# data: trace_heatmap_rows.dat (columns: row point_id size_bytes stride_bytes label)
#
# Render: gnuplot trace_heatmap.gp   (in this directory; writes trace_heatmap.svg and trace_heatmap.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_constant_l15_size: Fine-grained trace'
set xlabel 'access index (measured accesses of thread 0, in order)'
set ylabel 'array size N'
set xrange [-0.5:511.5]
set yrange [-0.5:59.5]
set ytics ('4 KiB' 0, '8 KiB' 4, '12 KiB' 8, '16 KiB' 12, '20 KiB' 16, '24 KiB' 20, '28 KiB' 24, '32 KiB' 28, '36 KiB' 32, '40 KiB' 36, '44 KiB' 40, '48 KiB' 44, '52 KiB' 48, '56 KiB' 52, '60 KiB' 56, '63 KiB' 59)
set tics out
set grid noxtics noytics
unset key
set palette defined (0 '#440154', 1 '#482878', 2 '#3e4989', 3 '#31688e', 4 '#26828e', 5 '#1f9e89', 6 '#35b779', 7 '#6ece58', 8 '#b5de2b', 9 '#fde725')
set cbrange [109:111]
set cblabel 'latency (cycles)'
set rmargin 12

set terminal svg size 1000,620 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'trace_heatmap.svg'
plot 'trace_heatmap.dat' matrix with image

set terminal pngcairo size 1000,620 noenhanced font 'Sans,11' background rgb 'white'
set output 'trace_heatmap.png'
replot
set output
