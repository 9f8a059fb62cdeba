function [c, ia, ib] = union(a, b)
%UNION  The distinct values of a and b together, sorted. As MATLAB and Octave: c is a row when
%   a and b are both rows and a column otherwise, with the class that [a(:); b(:)] has; ia
%   and ib (columns) hold the first position in a of each value of c found in a, and the
%   first position in b of each value found only in b. When a and b are both empty it stops,
%   as unique does (MATLAB and Octave 7 give it different shapes).
%
%   m2cu's own MATLAB source: unique of the values of both, whose first positions are split
%   between a and b (Octave's algorithm).
if isrow(a) && isrow(b)
  [c, first] = unique([a(:); b(:)].');
else
  [c, first] = unique([a(:); b(:)]);
end
na = numel(a);
ia = first(first <= na);
ib = first(first > na) - na;
end
