function [c, ia] = setdiff(a, b)
%SETDIFF  The distinct values of a that are not in b, sorted: c = a(ia). As MATLAB and Octave:
%   c is a row when a is a row and a column otherwise, has a's class, keeps every NaN of a
%   (NaN equals nothing), and ia (a column) holds the first position of each value in a.
%   An empty a stops, as unique does (MATLAB and Octave 7 give it different shapes).
%
%   m2cu's own MATLAB source: unique(a), then the values that ismember finds in b removed.
%   Numeric (complex too), logical and char values; cells of texts are not supported yet.
[c, ia] = unique(a);
if ~isempty(b)
  keep = ~ismember(c, b);
  c = c(keep);
  ia = ia(keep);
end
end
