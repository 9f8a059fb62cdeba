function t = isequal(a, b)
%ISEQUAL  Whether a and b have the same size and equal elements: classes may differ
%   (isequal('abc', [97 98 99]) is true), NaN equals nothing. Two arguments.
t = false;
if ndims(a) == ndims(b) && size(a, 1) == size(b, 1) && size(a, 2) == size(b, 2) && size(a, 3) == size(b, 3)
  t = nnz(a ~= b) == 0;
end
end
