# dissect report: TLB staircase of topology_tlb
# bundle: /tmp/dissect-topology/run1/topology_tlb
# data: tlb_staircase.dat (columns: size_bytes mean median measured point_id miss_share_1_above_296.5)
#
# Render: gnuplot tlb_staircase.gp   (in this directory; writes tlb_staircase.svg and tlb_staircase.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_tlb: TLB staircase'
set logscale x 2
set xrange [1872485.714:901956894.7]
set xtics ('4 MiB' 4194304, '8 MiB' 8388608, '16 MiB' 16777216, '32 MiB' 33554432, '64 MiB' 67108864, '128 MiB' 134217728, '256 MiB' 268435456, '512 MiB' 536870912)
set mxtics default
set xlabel 'array size N'
set ylabel 'average latency per access (cycles)'
set yrange [273.3802344:300.0103906]
set key left center
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7
set y2label 'accesses above a latency level (%)'
set y2range [0:105]
set y2tics 0, 20, 100
set ytics nomirror

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'tlb_staircase.svg'
plot 'tlb_staircase.dat' index 0 using 1:2 with linespoints ls 1 title 'average latency', \
     'tlb_staircase.dat' using 1:6 axes x1y2 with steps lw 1.5 dt 2 lc rgb '#ff7f0e' title 'share > 296.5 cycles (right axis)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'tlb_staircase.png'
replot
set output
