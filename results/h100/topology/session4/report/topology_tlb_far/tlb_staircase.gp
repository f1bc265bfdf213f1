# dissect report: TLB staircase of topology_tlb_far
# bundle: /tmp/dissect-topology/run1/topology_tlb_far
# data: tlb_staircase.dat (columns: size_bytes mean median measured point_id)
#
# Render: gnuplot tlb_staircase.gp   (in this directory; writes tlb_staircase.svg and tlb_staircase.png)

set encoding utf8
set border lw 1 lc rgb '#444444'
set grid lw 1 lc rgb '#e0e0e0'
set style line 100 lc rgb '#bbbbbb' lw 1
set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1
set title 'topology_tlb_far: TLB staircase'
set logscale x 2
set xrange [719034514.3:7215655158]
set xtics ('1 GiB' 1073741824, '2 GiB' 2147483648, '4 GiB' 4294967296)
set mxtics default
set xlabel 'array size N'
set ylabel 'average latency per access (cycles)'
set yrange [293.7945679:295.2484619]
set key left center
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#ff7f0e' lw 2 pt 7 ps 0.7

set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'tlb_staircase.svg'
plot 'tlb_staircase.dat' index 0 using 1:2 with linespoints ls 1 title 'average latency'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'tlb_staircase.png'
replot
set output
