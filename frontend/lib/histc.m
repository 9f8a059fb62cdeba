function n = histc(x, edges)
%HISTC  Counts of x in the bins of EDGES: n(k) counts edges(k) <= x < edges(k+1), and the
%   last counts x == edges(end); values outside, and NaN, are not counted. n is a column for a
%   column x and a row otherwise; x must be a vector and EDGES sorted. An empty x stops (its
%   Octave 7 result is 2-by-0).
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
for k = 1:numel(x)
  b = bin(x(k), edges);
  if b > 0
    n(b) = n(b) + 1;
  end
end
end

function b = bin(v, edges)
% The bin of v: the last k with edges(k) <= v (the last bin only for v == edges(end)), or 0.
m = numel(edges);
b = 0;
if m > 0 && v >= edges(1) && v <= edges(m)
  if v == edges(m)
    b = m;
  else
    lo = 1;
    hi = m;
    while hi - lo > 1
      mid = floor((lo + hi) / 2);
      if edges(mid) <= v
        lo = mid;
      else
        hi = mid;
      end
    end
    b = lo;
  end
end
end
