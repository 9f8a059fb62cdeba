function s = std(x, w, dim)
%STD  Standard deviation along the first dimension whose extent is not 1, or along DIM.
%   std(x), std(x, w), std(x, w, dim), std(x, [], dim): the square root of var with the same
%   arguments (w = 0 divides by n - 1, w = 1 by n, a vector w weights the elements), as
%   Octave 7 computes it.
if nargin < 2
  s = sqrt(var(x));
elseif nargin < 3
  s = sqrt(var(x, w));
else
  s = sqrt(var(x, w, dim));
end
end
