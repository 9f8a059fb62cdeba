function [X, Y] = ndgrid(x, y)
%NDGRID  2-D grid coordinates in the order of the dimensions: X repeats the column x(:) once
%   per element of y, Y repeats the row y(:).' once per element of x (numel(x)-by-numel(y)
%   each); [X, Y] = ndgrid(x) is ndgrid(x, x), and X = ndgrid(x) is x(:). X has the class of
%   x, Y the class of y. (Grids of three or more dimensions are not translated.)
if nargin < 2 && nargout < 2
  X = x(:);
  return;
end
if nargin < 2
  y = x;
end
X = repmat(x(:), 1, numel(y));
Y = repmat(y(:).', numel(x), 1);
end
