# dissect report: Saavedra grid: latency over N for each stride of topology_tlb
# bundle: /tmp/w1/extra/topology_tlb
# data: saavedra_grid.dat (columns: size_bytes stride_bytes mean median samples point_id)
#
# Render: gnuplot saavedra_grid.gp   (in this directory; writes saavedra_grid.svg and saavedra_grid.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_tlb: Saavedra grid: latency over N for each stride'
set logscale x 2
set xrange [7371.428571:1.231453317e+12]
set xtics ('16 KiB' 16384, '128 KiB' 131072, '1 MiB' 1048576, '8 MiB' 8388608, '64 MiB' 67108864, '512 MiB' 536870912, '4 GiB' 4294967296, '32 GiB' 34359738368, '256 GiB' 274877906944)
set mxtics default
set xlabel 'array size N'
set ylabel 'average latency per access (cycles)'
set yrange [195.997561:1271.383512]
set key outside right top vertical title 'stride s'
set style line 1 lc rgb '#0d0887' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#240690' lw 2 pt 7 ps 0.7
set style line 3 lc rgb '#3c0499' lw 2 pt 7 ps 0.7
set style line 4 lc rgb '#5402a3' lw 2 pt 7 ps 0.7
set style line 5 lc rgb '#6604a3' lw 2 pt 7 ps 0.7
set style line 6 lc rgb '#7807a4' lw 2 pt 7 ps 0.7
set style line 7 lc rgb '#8b0aa5' lw 2 pt 7 ps 0.7
set style line 8 lc rgb '#9a179b' lw 2 pt 7 ps 0.7
set style line 9 lc rgb '#a92492' lw 2 pt 7 ps 0.7
set style line 10 lc rgb '#b93289' lw 2 pt 7 ps 0.7
set style line 11 lc rgb '#c4407e' lw 2 pt 7 ps 0.7
set style line 12 lc rgb '#cf4e72' lw 2 pt 7 ps 0.7
set style line 13 lc rgb '#db5c68' lw 2 pt 7 ps 0.7
set style line 14 lc rgb '#e36a5d' lw 2 pt 7 ps 0.7
set style line 15 lc rgb '#eb7953' lw 2 pt 7 ps 0.7
set style line 16 lc rgb '#f48849' lw 2 pt 7 ps 0.7
set style line 17 lc rgb '#f69242' lw 2 pt 7 ps 0.7
set style line 18 lc rgb '#f99b3c' lw 2 pt 7 ps 0.7
set style line 19 lc rgb '#fca636' lw 2 pt 7 ps 0.7

set terminal svg size 1080,620 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'saavedra_grid.svg'
plot 'saavedra_grid.dat' index 0 using 1:3 with linespoints ls 1 title '4128 B', \
     'saavedra_grid.dat' index 1 using 1:3 with linespoints ls 2 title '8224 B', \
     'saavedra_grid.dat' index 2 using 1:3 with linespoints ls 3 title '16416 B', \
     'saavedra_grid.dat' index 3 using 1:3 with linespoints ls 4 title '32800 B', \
     'saavedra_grid.dat' index 4 using 1:3 with linespoints ls 5 title '64.03 KiB', \
     'saavedra_grid.dat' index 5 using 1:3 with linespoints ls 6 title '128.03 KiB', \
     'saavedra_grid.dat' index 6 using 1:3 with linespoints ls 7 title '256.03 KiB', \
     'saavedra_grid.dat' index 7 using 1:3 with linespoints ls 8 title '512.03 KiB', \
     'saavedra_grid.dat' index 8 using 1:3 with linespoints ls 9 title '1.00 MiB', \
     'saavedra_grid.dat' index 9 using 1:3 with linespoints ls 10 title '2.00 MiB', \
     'saavedra_grid.dat' index 10 using 1:3 with linespoints ls 11 title '4.00 MiB', \
     'saavedra_grid.dat' index 11 using 1:3 with linespoints ls 12 title '8.00 MiB', \
     'saavedra_grid.dat' index 12 using 1:3 with linespoints ls 13 title '16.00 MiB', \
     'saavedra_grid.dat' index 13 using 1:3 with linespoints ls 14 title '32.00 MiB', \
     'saavedra_grid.dat' index 14 using 1:3 with linespoints ls 15 title '64.00 MiB', \
     'saavedra_grid.dat' index 15 using 1:3 with linespoints ls 16 title '128.00 MiB', \
     'saavedra_grid.dat' index 16 using 1:3 with linespoints ls 17 title '256.00 MiB', \
     'saavedra_grid.dat' index 17 using 1:3 with linespoints ls 18 title '512.00 MiB', \
     'saavedra_grid.dat' index 18 using 1:3 with linespoints ls 19 title '1.00 GiB'

set terminal pngcairo size 1080,620 noenhanced font 'Sans,11' background rgb 'white'
set output 'saavedra_grid.png'
replot
set output
