function y = atand(x)
%ATAND  The inverse tangent in degrees, as Octave computes it: 180 ./ pi .* atan(x).
y = 180 ./ pi .* atan(x);
end
