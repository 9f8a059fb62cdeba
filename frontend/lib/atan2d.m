function a = atan2d(y, x)
%ATAN2D  The four-quadrant inverse tangent in degrees, as Octave computes it:
%   180 ./ pi .* atan2(y, x).
a = 180 ./ pi .* atan2(y, x);
end
