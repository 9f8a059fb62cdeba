function [n, idx] = histc(x, edges)
%HISTC  Counts of x in the bins of EDGES: n(k) counts edges(k) <= x < edges(k+1), and the
%   last counts x == edges(end); values outside, and NaN, are not counted. n is a column for a
%   column x and a row otherwise; x must be a vector and EDGES sorted. An empty x stops (its
%   Octave 7 result is 2-by-0). [n, idx] = histc(...) also gives each value's bin, 0 outside,
%   in x's shape.
%
%   m2cu's own MATLAB source: a parallel loop over x, each value's bin found by bisection,
%   the counts a histogram.
if isempty(x)
  error('m2cu:histc', 'm2cu: histc of an empty array is 2-by-0 in Octave 7; test isempty(x) first');
end
for k = 1:numel(edges)
  if isnan(edges(k)) || (k > 1 && edges(k) < edges(k - 1))
    error('m2cu:histc', 'm2cu: histc: EDGES must be sorted and free of NaN (Octave 7 warns and counts in an order of its own)');
  end
end
if size(x, 1) > 1
  n = zeros(numel(edges), 1);
else
  n = zeros(1, numel(edges));
end
if nargout > 1
  idx = zeros(size(x));
end
for k = 1:numel(x)
  b = m2cu_bin(x(k), edges);
  if b > 0
    n(b) = n(b) + 1;
  end
  if nargout > 1
    idx(k) = b;
  end
end
end
