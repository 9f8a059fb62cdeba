function [counts, edges_out] = histcounts(x, edges)
%HISTCOUNTS  Counts of the elements of x in the bins of EDGES, as a row: counts(k) counts
%   edges(k) <= x < edges(k+1), the last bin also x == edges(end); values outside, and NaN,
%   are not counted. The second output is EDGES as a row. EDGES must be sorted and free of
%   NaN; a number of bins (MATLAB's automatic edges) is not supported yet.
%
%   m2cu's own MATLAB source: a parallel loop over x, each value's bin found by bisection
%   (m2cu_bin.m), the counts a histogram.
if m2cu_scalar_type(edges)
  m2cu_refuse('`histcounts` with a number of bins: MATLAB chooses the edges by rules of its own, which m2cu does not reproduce yet', ...
              'give the edges, as in `histcounts(x, linspace(lo, hi, nbins + 1))`');
end
if numel(edges) < 2
  error('m2cu:histcounts', 'm2cu: histcounts with fewer than two edges: MATLAB reads one number as a count of bins, whose edges it chooses by rules of its own');
end
for k = 1:numel(edges)
  if isnan(edges(k)) || (k > 1 && edges(k) < edges(k - 1))
    error('m2cu:histcounts', 'm2cu: histcounts: EDGES must be sorted and free of NaN');
  end
end
m = numel(edges);
counts = zeros(1, m - 1);
for k = 1:numel(x)
  b = m2cu_bin(x(k), edges);
  if b == m
    b = m - 1;
  end
  if b > 0
    counts(b) = counts(b) + 1;
  end
end
edges_out = reshape(edges, 1, m);
end
