function [c, ia, ib] = intersect(a, b)
%INTERSECT  The distinct values found in both a and b, sorted: c = a(ia) and c = b(ib). As
%   MATLAB and Octave: c is a row when a and b are both rows and a column otherwise, with the
%   class that [a(:); b(:)] has; ia and ib (columns) hold the first position of each value in a
%   and in b; NaN is in no intersection. When a or b is empty it stops: Octave 7 returns a
%   0-by-0 [] and MATLAB a 1-by-0 or 0-by-1 array.
%
%   m2cu's own MATLAB source: the distinct values of each, sorted together; a value found in
%   both is one that equals its successor (Octave's algorithm).
if isempty(a) || isempty(b)
  error('m2cu:intersect', 'm2cu: intersect of an empty set is a 0-by-0 [] in Octave 7 and a 1-by-0 or 0-by-1 array in MATLAB; test isempty first');
end
[ua, ia] = unique(a);
[ub, ib] = unique(b);
[both, from] = sort([ua(:); ub(:)]);
match = find(both(1:end-1) == both(2:end));
c = both(match);
ia = ia(from(match));
ib = ib(from(match + 1) - numel(ua));
if isrow(a) && isrow(b)
  c = c.';
end
end
