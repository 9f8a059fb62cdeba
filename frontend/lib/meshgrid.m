function [X, Y] = meshgrid(x, y)
%MESHGRID  2-D grid coordinates: X repeats the row x(:).' once per element of y, Y repeats
%   the column y(:) once per element of x (numel(y)-by-numel(x) each); meshgrid(x) is
%   meshgrid(x, x). X has the class of x, Y the class of y. (The 3-D form is not translated.)
if nargin < 2
  y = x;
end
X = repmat(x(:).', numel(y), 1);
Y = repmat(y(:), 1, numel(x));
end
