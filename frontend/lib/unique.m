function [c, ia, ic] = unique(x)
%UNIQUE  The distinct values of x in ascending order: c = x(ia) and x = c(ic). As MATLAB and
%   Octave: c is a row for a row x and a column otherwise, ia and ic are columns, ia holds the
%   first occurrence of each value, NaN values are all kept (NaN equals nothing), c has x's
%   class and, as Octave's, holds the last of equal values in sorted order (so -0 after 0 in
%   x gives -0). An empty x stops (MATLAB and Octave 7 give it different shapes).
%
%   m2cu's own MATLAB source: sorts with m2cu's sort.m, then keeps the first of each run.
if isempty(x)
  error('m2cu:unique', 'm2cu: unique of an empty array has other shapes in MATLAB and Octave 7; test isempty(x) first');
end
[s, order] = sort(x(:));
n = numel(s);
first = true(n, 1);
for k = 2:n
  first(k) = s(k) ~= s(k - 1);
end
last = [first(2:end); true];
group = cumsum(first);
ic = zeros(n, 1);
for k = 1:n
  ic(order(k)) = group(k);
end
ia = order(first);
if size(x, 1) == 1
  c = s(last).';
else
  c = s(last);
end
end
