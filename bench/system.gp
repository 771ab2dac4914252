# SPDX-License-Identifier: GPL-2.0
# The plot of bench/system (make bench-system), two panels:
#   gnuplot -e "caches='F'; huge='H'; outfile='P'; nrows=N" bench/system.gp
# F  header "cache ROW... optimum", then one line per cache: slab MiB of each
#    kernel row before huge pages are asked for, and the lowest optimum of
#    the rows (their live objects packed into full slabs)
# H  header "row hugetlb_2M thp_2M order_ge9_blocks", one line per row
set terminal pngcairo noenhanced size 1200, 900 font ",10"
set output outfile
set multiplot layout 2, 1
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key outside right top vertical autotitle columnheader
set yrange [0:*]
set xtics rotate by -30

set title "Slab MiB per cache after the workload, before huge pages are asked for"
set ylabel "MiB"
plot for [i=2:nrows + 2] caches using i:xtic(1)

set title "Huge pages after compact_memory (2 MiB pages) and free order>=9 blocks"
set ylabel "count"
set xtics norotate
plot for [i=2:4] huge using i:xtic(1)
unset multiplot
