function y = circshift(x, n, dim)
%CIRCSHIFT  Shift the elements of x circularly: by n places along the first dimension whose
%   extent is more than 1, by n(1) rows and n(2) columns for a vector n, or by n along DIM.
%   A positive n moves elements down (right), a negative one up (left), wrapping around;
%   y has x's class and size. A DIM past the second returns x (MATLAB; Octave 7 stops).
%
%   m2cu's own MATLAB source: each element of y is one iteration of a parallel 2-D loop.
if ndims(x) > 2
  error('m2cu:circshift', 'm2cu: circshift of a 3-D array is not supported yet');
end
if nargin == 3
  if ~isscalar(n)
    error('circshift: N must be a scalar when DIM is also specified');
  elseif ~(dim >= 1 && dim == floor(dim))
    error('circshift: DIM must be a valid dimension');
  end
  whole_shifts(n);
  if dim == 1
    y = shifted(x, n, 0);
  elseif dim == 2
    y = shifted(x, 0, n);
  else
    y = x;
  end
elseif isscalar(n)
  whole_shifts(n);
  if size(x, 1) == 1
    y = shifted(x, 0, n);
  else
    y = shifted(x, n, 0);
  end
else
  if numel(n) > 2
    error('circshift: N must be a vector, no longer than the number of dimensions in X');
  end
  whole_shifts(n);
  y = shifted(x, n(1), n(2));
end
end

function whole_shifts(n)
% Stops unless every shift is a whole number.
if any(n ~= fix(n))
  error('circshift: all values of N must be integers');
end
end

function y = shifted(x, rows, cols)
% x moved down by rows and right by cols, wrapping around.
[m, n] = size(x);
y = x;
for j = 1:n
  for i = 1:m
    y(i, j) = x(mod(i - 1 - rows, m) + 1, mod(j - 1 - cols, n) + 1);
  end
end
end
