# SPDX-License-Identifier: GPL-2.0
# Plot of the defrag scenario of bench/run: for every keep ratio, the slabs
# of the cache before shrinking, after a shrink with mobility, after a shrink
# of the same-shaped cache without mobility, and the optimum.
#   gnuplot -e "datafile='bench/out/defrag.dat'; outfile='bench/out/defrag.png'; blocks=2" bench/defrag.gp
# datafile: one block per object count (separated by two blank lines), each
# starting with a "# objects N: ..." comment, rows "1/K before with without
# optimum".
if (!exists("datafile")) datafile = 'bench/out/defrag.dat'
if (!exists("outfile")) outfile = 'bench/out/defrag.png'
if (!exists("blocks")) blocks = 2

set terminal pngcairo size (600 * blocks), 520 font ",10"
set output outfile
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key outside bottom center horizontal
set xlabel "objects kept (1 in K)"
set ylabel "slabs (both nodes)"
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0

set multiplot layout 1, blocks title "smo: slabs after kmem\\_cache\\_shrink(), with and without mobility (one boot)"
do for [b = 0:blocks - 1] {
	# the object count from the block's comment line
	n = system(sprintf("awk -v b=%d '/^# objects/ { if (i++ == b) { sub(/:.*/, \"\", $3); print $3 } }' '%s'", b, datafile))
	set title sprintf("%s objects", n)
	plot datafile index b using 2:xtic(1) title "before" lc rgb "#999999", \
	     '' index b using 3 title "after, with mobility" lc rgb "#1b9e77", \
	     '' index b using 4 title "after, without mobility" lc rgb "#d95f02", \
	     '' index b using 5 title "optimum" lc rgb "#7570b3"
}
unset multiplot
