# dissect report: Missed accesses over N of topology_l2_size
# bundle: /tmp/dissect-topology/run1/topology_l2_size
# data: miss_staircase.dat (columns: size_bytes missed_per_pass miss_share_percent misses measured accesses_per_pass point_id)
#
# Render: gnuplot miss_staircase.gp   (in this directory; writes miss_staircase.svg and miss_staircase.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_l2_size: Missed accesses over N'
set logscale x 2
set xrange [234057.1429:150323855.4]
set xtics ('256 KiB' 262144, '512 KiB' 524288, '1 MiB' 1048576, '2 MiB' 2097152, '4 MiB' 4194304, '8 MiB' 8388608, '16 MiB' 16777216, '32 MiB' 33554432, '64 MiB' 67108864, '128 MiB' 134217728)
set mxtics default
set xlabel 'array size N'
set ylabel 'missed accesses per pass'
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set key top left
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'miss_staircase.svg'
plot 'miss_staircase.dat' index 0 using 1:2 with steps ls 1 notitle, \
     'miss_staircase.dat' index 0 using 1:2 with points ls 1 title 'missed per pass'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'miss_staircase.png'
replot
set output
